import type { ApiKeyKind } from '../apps/repo.js';
import type { ResolvedOptions } from '../capability.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { WalletRecord } from '../wallets/repo.js';
import { signingWallets } from '../wallets/service.js';
import { type EvmNode, evmNodeFor, type NodeRefusal } from './evm-node.js';
import { bumped, maxOf, suggestFees, withGasMargin } from './fees.js';
import { newSendRow } from './new-send-row.js';
import { callNode, isRecord, nodeCache } from './node-calls.js';
import type { WalletTransactionRecord, WalletTransactionStatus } from './repo.js';
import type { ReplaceTransactionRequest, SendTransactionRequest, WalletTransaction } from './schema.js';
import { type SignUnderHeld, sendSteps } from './send-steps.js';
import { isSolanaChain } from './solana-node.js';
import { solanaSender } from './solana-send.js';
import { STALE_SECONDS, TRUSTED_SEQUENCE_SECONDS } from './stale.js';

/** Statuses a receipt may still settle. */
const LIVE: readonly WalletTransactionStatus[] = ['submitted', 'replaced'];

export const transactionView = (t: WalletTransactionRecord): WalletTransaction => ({
  id: t.id,
  wallet_id: t.wallet_id,
  chain_id: t.chain_id,
  nonce: t.nonce,
  kind: t.kind,
  status: t.status,
  to: t.to,
  value: t.value,
  data: t.data,
  gas_limit: t.gas_limit,
  max_fee_per_gas: t.max_fee_per_gas,
  max_priority_fee_per_gas: t.max_priority_fee_per_gas,
  transaction_hash: t.transaction_hash,
  replaces: t.replaces,
  replaced_by: t.replaced_by,
  idempotency_key: t.idempotency_key,
  block_number: t.block_number,
  gas_used: t.gas_used,
  effective_gas_price: t.effective_gas_price,
  fee: t.fee,
  error: t.error,
  created_at: t.created_at,
  updated_at: t.updated_at,
});

const sendAnswer = (t: WalletTransactionRecord) => ({
  transaction_id: t.id,
  transaction_hash: t.transaction_hash,
  status: t.status,
  nonce: t.nonce,
});

export type WalletTransactionService = ReturnType<typeof walletTransactionService>;

/**
 * Sending from custodial EVM wallets: nonces from a sequence in storage, gas and fees from the
 * node, every signature through the wallets' policy gate, and the transaction followed to its
 * receipt (docs/wallets.md, "Sending"). Solana bodies and rows go to solana-send.ts.
 */
export function walletTransactionService(
  k: Kernel,
  deps: { chains: ResolvedOptions['chains']; signUnderHeld: SignUnderHeld },
) {
  const repo = k.storage.walletTransactions;
  const { advance, signHeld } = sendSteps(k, deps.signUnderHeld);
  const solana = solanaSender(k, deps.chains, { advance, signHeld });
  const nodeFor = nodeCache((chainId: string) => evmNodeFor(deps.chains, chainId));

  const rpc = (node: EvmNode, method: string, params: unknown[]) =>
    callNode(node, method, params, refusalError);
  // A wallet row is never updated: the copy signatures use serves sends too (no read per send).
  const sendingWallet = signingWallets(k.storage.wallets);
  // (wallet, chain) → until when this process trusts its sequence (TRUSTED_SEQUENCE_SECONDS).
  const trusted = new Map<string, number>();
  const MAX_TRUSTED = 10_000;

  /** The wallet, when it can send `body` (the one a request gives): its type is the body's chain. */
  async function requireSendingWallet(
    appId: string,
    walletId: string,
    body: SendBody = 'eth_transaction',
  ): Promise<WalletRecord> {
    // Unknown: wallet_not_found; read-only or external: wallet_read_only.
    const wallet = await sendingWallet(appId, walletId);
    const type = body === 'eth_transaction' ? 'ethereum' : 'solana';
    if (wallet.wallet_type !== type)
      throw new LatchkeyError(
        'wallet_type_mismatch',
        `Only ${type} wallets send ${body}; this is a ${wallet.wallet_type} wallet.`,
        { field: body },
      );
    return wallet;
  }

  async function requireTransaction(appId: string, walletId: string, id: string) {
    const t = await repo.get(appId, id);
    if (!t || t.wallet_id !== walletId) throw new LatchkeyError('transaction_not_found');
    return t;
  }

  async function fees(node: EvmNode) {
    const history = await rpc(node, 'eth_feeHistory', ['0x5', 'latest', [50]]);
    if (!isRecord(history) || !Array.isArray(history.baseFeePerGas))
      throw new LatchkeyError(
        'chain_invalid_response',
        `${node.label}: eth_feeHistory has no baseFeePerGas.`,
      );
    const rewards = Array.isArray(history.reward) ? history.reward : [];
    return suggestFees({
      baseFeePerGas: history.baseFeePerGas.map((v) => quantity(node, v, 'eth_feeHistory')),
      rewards: rewards.map((r) => quantity(node, Array.isArray(r) ? r[0] : r, 'eth_feeHistory')),
    });
  }

  /**
   * Signs under the policies (a refusal is in the audit trail at once), stores the signed bytes
   * with the signature's audit entry, then broadcasts. A transaction that is not signed gives
   * its nonce back (a replacement has none of its own to give).
   */
  async function signAndBroadcast(
    wallet: WalletRecord,
    node: EvmNode,
    t: WalletTransactionRecord,
    keyKind: ApiKeyKind,
  ): Promise<WalletTransactionRecord> {
    let signed: Awaited<ReturnType<typeof signHeld>>;
    try {
      signed = await signHeld(
        wallet,
        {
          eth_transaction: {
            chain_id: t.chain_id,
            value: t.value,
            ...(t.data === null ? {} : { data: t.data }),
            nonce: String(t.nonce!),
            gas_limit: t.gas_limit!,
            max_fee_per_gas: t.max_fee_per_gas!,
            max_priority_fee_per_gas: t.max_priority_fee_per_gas!,
            to: t.to!,
            type: 'eip1559',
          },
        },
        keyKind,
      );
    } catch (err) {
      await giveUp(t, ['preparing'], err instanceof LatchkeyError ? err.errorType : 'internal_error');
      throw err;
    }
    // The signature leaves the process only once stored, its audit entry with it: a crash before
    // this write loses both, and nothing was broadcast.
    const stored = await advance(
      t,
      ['preparing'],
      {
        status: 'signed',
        raw_transaction: signed.result.signed_transaction,
        transaction_hash: signed.result.transaction_hash ?? null,
        updated_at: k.now(),
      },
      signed.entry,
    );
    // Taken for a dead process's and its nonce given back while this one signed: never broadcast it.
    if (!stored)
      throw new LatchkeyError('nonce_conflict', 'The transaction was abandoned while it was being signed.');
    return broadcast(node, stored);
  }

  /** Abandons `t`; a send gives its nonce back to the sequence, a replacement's stays with the original. */
  const giveUp = (t: WalletTransactionRecord, from: readonly WalletTransactionStatus[], error: string) =>
    t.kind === 'send'
      ? repo.abandon(t.app_id, t.id, from, { error, updated_at: k.now() })
      : repo.transition(t.app_id, t.id, from, { status: 'abandoned', error, updated_at: k.now() });

  /**
   * `eth_sendRawTransaction`, once. When the answer is lost (a timeout, a cut connection) the node
   * is asked whether it holds the transaction before anything else happens: known, it is
   * submitted; unknown or unreachable, it stays `signed` and is broadcast again later.
   */
  async function broadcast(node: EvmNode, t: WalletTransactionRecord): Promise<WalletTransactionRecord> {
    const submitted = async () =>
      (await advance(t, ['signed'], { status: 'submitted', updated_at: k.now() })) ??
      (await repo.get(t.app_id, t.id))!;
    let answer: Awaited<ReturnType<EvmNode['call']>>;
    try {
      answer = await node.call('eth_sendRawTransaction', [t.raw_transaction], { retries: 0 });
    } catch (err) {
      if (await nodeHolds(node, t.transaction_hash!).catch(() => false)) return submitted();
      throw err;
    }
    if (!('refusal' in answer)) return submitted();
    const words = answer.refusal.message.toLowerCase();
    // Sent before (a retried broadcast, or a concurrent send with the same idempotency key): the
    // node has it. Nodes word this differently (geth "already known", anvil "already imported"),
    // and a transaction mined since reads as "nonce too low": whatever the words, a refusal of a
    // transaction the node holds is not a failure, so its hash is asked before giving up. If the
    // node cannot say, nothing is given up: the row stays signed for a retry with its key.
    if (words.includes('already known') || words.includes('known transaction')) return submitted();
    if (await nodeHolds(node, t.transaction_hash!)) return submitted();
    const error = refusalError(node, 'eth_sendRawTransaction', answer.refusal);
    await giveUp(t, ['signed'], error.message);
    throw error;
  }

  /** Whether the node holds this very transaction (its record names the hash asked for). */
  const nodeHolds = async (node: EvmNode, hash: string) => {
    const found = await rpc(node, 'eth_getTransactionByHash', [hash]);
    return (
      isRecord(found) && typeof found.hash === 'string' && found.hash.toLowerCase() === hash.toLowerCase()
    );
  };

  /**
   * Recovery for faults in other processes, before this send takes a nonce: a transaction left
   * `preparing` too long gives its nonce back; one left `signed` too long is broadcast again.
   */
  async function recover(wallet: WalletRecord, node: EvmNode, chainId: string) {
    const stale = k.now() - STALE_SECONDS;
    for (const t of await repo.listUnsent(wallet.app_id, wallet.id, chainId)) {
      if (t.updated_at > stale) continue;
      if (t.status === 'preparing') await giveUp(t, ['preparing'], 'abandoned: never signed (recovered)');
      else await broadcast(node, t).catch(() => {});
    }
  }

  /** Reads the receipt of a transaction the node holds and records how it ended, if it has. */
  async function refresh(t: WalletTransactionRecord): Promise<WalletTransactionRecord> {
    if (isSolanaChain(t.chain_id)) return solana.refresh(t);
    if (!LIVE.includes(t.status) || !t.transaction_hash) return t;
    const node = nodeFor(t.chain_id);
    const receipt = await rpc(node, 'eth_getTransactionReceipt', [t.transaction_hash]);
    if (isRecord(receipt)) {
      const gasUsed = quantity(node, receipt.gasUsed, 'eth_getTransactionReceipt');
      const price = quantity(node, receipt.effectiveGasPrice, 'eth_getTransactionReceipt');
      const ok = quantity(node, receipt.status, 'eth_getTransactionReceipt') === 1n;
      const moved = await advance(t, LIVE, {
        status: ok ? 'confirmed' : 'failed',
        block_number: quantity(node, receipt.blockNumber, 'eth_getTransactionReceipt').toString(),
        gas_used: gasUsed.toString(),
        effective_gas_price: price.toString(),
        fee: (gasUsed * price).toString(),
        error: ok ? null : 'reverted',
        raw_transaction: null,
        updated_at: k.now(),
      });
      return moved ?? (await repo.get(t.app_id, t.id))!;
    }
    if (t.status !== 'submitted') return t;
    // No receipt: if the nonce is used on chain, another transaction took it.
    const wallet = await k.storage.wallets.get(t.app_id, t.wallet_id);
    if (!wallet) return t;
    const mined = quantity(
      node,
      await rpc(node, 'eth_getTransactionCount', [wallet.public_address, 'latest']),
      'eth_getTransactionCount',
    );
    if (mined <= BigInt(t.nonce!)) return t;
    // Mined between the two reads: the next read settles it.
    if (isRecord(await rpc(node, 'eth_getTransactionReceipt', [t.transaction_hash]))) return t;
    return (
      (await repo.transition(t.app_id, t.id, ['submitted'], {
        status: 'dropped',
        error: 'another transaction used this nonce',
        raw_transaction: null,
        updated_at: k.now(),
      })) ?? t
    );
  }

  async function replace(
    kind: 'speed_up' | 'cancel',
    appId: string,
    walletId: string,
    transactionId: string,
    input: ReplaceTransactionRequest,
    keyKind: ApiKeyKind,
  ) {
    const found = await requireTransaction(appId, walletId, transactionId);
    if (isSolanaChain(found.chain_id))
      throw new LatchkeyError(
        'transaction_not_replaceable',
        'A Solana transaction has no nonce to replace it at: it lands or its blockhash expires.',
      );
    const wallet = await requireSendingWallet(appId, walletId);
    const original = await refresh(found);
    if (original.status !== 'submitted') throw new LatchkeyError('transaction_not_replaceable');
    const node = nodeFor(original.chain_id);
    const now_ = await fees(node);
    const tip = maxOf(
      bumped(BigInt(original.max_priority_fee_per_gas!)),
      now_.maxPriorityFeePerGas,
      BigInt(input.max_priority_fee_per_gas ?? 0),
    );
    const cap = maxOf(
      bumped(BigInt(original.max_fee_per_gas!)),
      now_.maxFeePerGas,
      BigInt(input.max_fee_per_gas ?? 0),
      tip,
    );
    const now = k.now();
    const replacement: WalletTransactionRecord = {
      ...original,
      id: k.id('wtx'),
      kind,
      status: 'preparing',
      // A cancel sends nothing to itself, for the least gas a transfer costs.
      ...(kind === 'cancel' ? { to: wallet.public_address, value: '0', data: null, gas_limit: '21000' } : {}),
      max_fee_per_gas: cap.toString(),
      max_priority_fee_per_gas: tip.toString(),
      transaction_hash: null,
      raw_transaction: null,
      replaces: original.id,
      replaced_by: null,
      idempotency_key: null,
      block_number: null,
      gas_used: null,
      effective_gas_price: null,
      fee: null,
      error: null,
      created_at: now,
      updated_at: now,
    };
    await repo.insert(replacement);
    const sent = await signAndBroadcast(wallet, node, replacement, keyKind);
    await advance(original, ['submitted'], {
      status: 'replaced',
      replaced_by: sent.id,
      updated_at: k.now(),
    });
    return sendAnswer(sent);
  }

  return {
    /**
     * Sends an EVM transaction from the wallet: the nonce from the wallet's sequence, gas and
     * fees filled when absent, signed under the policies, broadcast. The same idempotency key
     * answers the first send (broadcasting it again if the node never acknowledged it).
     */
    async send(
      appId: string,
      walletId: string,
      input: SendTransactionRequest,
      { keyKind = 'secret' }: { keyKind?: ApiKeyKind } = {},
    ) {
      const body = sendBody(input);
      const wallet = await requireSendingWallet(appId, walletId, body);
      if (body !== 'eth_transaction') return sendAnswer(await solana.send(wallet, input, keyKind));
      const eth = input.eth_transaction!;
      const node = nodeFor(eth.chain_id);
      if (input.idempotency_key !== undefined) {
        const first = await repo.findByIdempotencyKey(appId, walletId, input.idempotency_key);
        if (first) return sendAnswer(first.status === 'signed' ? await broadcast(node, first) : first);
      }
      const maxFee = eth.max_fee_per_gas === undefined ? undefined : BigInt(eth.max_fee_per_gas);
      const tipGiven =
        eth.max_priority_fee_per_gas === undefined ? undefined : BigInt(eth.max_priority_fee_per_gas);
      if (maxFee !== undefined && tipGiven !== undefined && tipGiven > maxFee)
        throw new LatchkeyError('invalid_field', 'max_priority_fee_per_gas is above max_fee_per_gas.', {
          field: 'eth_transaction.max_priority_fee_per_gas',
        });
      const sequence = `${walletId}\u0000${eth.chain_id}`;
      const isTrusted = (trusted.get(sequence) ?? 0) > k.now();
      if (!isTrusted) await recover(wallet, node, eth.chain_id);
      const call = {
        from: wallet.public_address,
        to: eth.to,
        value: `0x${BigInt(eth.value ?? '0').toString(16)}`,
        ...(eth.data === undefined ? {} : { data: eth.data }),
      };
      const [pending, gasLimit, suggested] = await Promise.all([
        // Trusted, the sequence is at or past the count (nonces given back included).
        isTrusted
          ? 0n
          : rpc(node, 'eth_getTransactionCount', [wallet.public_address, 'pending']).then((v) =>
              quantity(node, v, 'eth_getTransactionCount'),
            ),
        eth.gas_limit !== undefined
          ? BigInt(eth.gas_limit)
          : rpc(node, 'eth_estimateGas', [call]).then((v) =>
              withGasMargin(quantity(node, v, 'eth_estimateGas')),
            ),
        maxFee !== undefined && tipGiven !== undefined ? undefined : fees(node),
      ]);
      const tip =
        tipGiven ??
        (maxFee === undefined
          ? suggested!.maxPriorityFeePerGas
          : minOf(suggested!.maxPriorityFeePerGas, maxFee));
      const cap = maxFee ?? maxOf(suggested!.maxFeePerGas, tip);
      const { transaction, created } = await repo.insertWithNextNonce(
        newSendRow({
          id: k.id('wtx'),
          app_id: appId,
          wallet_id: walletId,
          chain_id: eth.chain_id,
          to: eth.to,
          value: eth.value ?? '0',
          data: eth.data ?? null,
          gas_limit: gasLimit.toString(),
          max_fee_per_gas: cap.toString(),
          max_priority_fee_per_gas: tip.toString(),
          idempotency_key: input.idempotency_key ?? null,
          now: k.now(),
        }),
        Number(pending),
      );
      // The same key, sent concurrently: the first one's answer.
      if (!created) return sendAnswer(transaction);
      let sent: WalletTransactionRecord;
      try {
        sent = await signAndBroadcast(wallet, node, transaction, keyKind);
      } catch (err) {
        // A refusal or a fault (a nonce the node says is used, a lost broadcast): the next send
        // reads the node's count and recovers again.
        trusted.delete(sequence);
        throw err;
      }
      if (trusted.size >= MAX_TRUSTED) trusted.clear();
      trusted.set(sequence, k.now() + TRUSTED_SEQUENCE_SECONDS);
      return sendAnswer(sent);
    },

    /** One transaction, its status first brought up to date from the chain. */
    async get(appId: string, walletId: string, transactionId: string): Promise<WalletTransaction> {
      return transactionView(await refresh(await requireTransaction(appId, walletId, transactionId)));
    },

    /** The wallet's transactions, newest first, as stored (a `get` reads each one's receipt). */
    async list(
      appId: string,
      walletId: string,
      query: { limit?: number | undefined; cursor?: string | undefined },
    ) {
      const wallet = await k.storage.wallets.get(appId, walletId);
      if (!wallet) throw new LatchkeyError('wallet_not_found');
      const page = await repo.list(appId, walletId, { limit: query.limit ?? 100, before: query.cursor });
      return { transactions: page.transactions.map(transactionView), next_cursor: page.next_cursor };
    },

    /** Replaces a submitted transaction by the same one with higher fees, at its nonce. */
    speedUp: (
      appId: string,
      walletId: string,
      transactionId: string,
      input: ReplaceTransactionRequest = {},
      { keyKind = 'secret' }: { keyKind?: ApiKeyKind } = {},
    ) => replace('speed_up', appId, walletId, transactionId, input, keyKind),

    /** Replaces a submitted transaction by a transfer of nothing to the wallet itself, at its nonce. */
    cancel: (
      appId: string,
      walletId: string,
      transactionId: string,
      input: ReplaceTransactionRequest = {},
      { keyKind = 'secret' }: { keyKind?: ApiKeyKind } = {},
    ) => replace('cancel', appId, walletId, transactionId, input, keyKind),
  };
}

type SendBody = 'eth_transaction' | 'sol_transaction' | 'sol_transfer';

/** The one body a send request gives; a clear 400 for none or several. */
function sendBody(input: SendTransactionRequest): SendBody {
  const given = (['eth_transaction', 'sol_transaction', 'sol_transfer'] as const).filter(
    (b) => input[b] !== undefined,
  );
  if (given.length !== 1)
    throw new LatchkeyError(
      'missing_field',
      'Send exactly one of eth_transaction, sol_transaction and sol_transfer.',
      { field: given[1] ?? 'eth_transaction' },
    );
  return given[0]!;
}

const minOf = (a: bigint, b: bigint) => (a < b ? a : b);

function quantity(node: EvmNode, value: unknown, method: string): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value))
    throw new LatchkeyError(
      'chain_invalid_response',
      `${node.label}: ${method} did not return a hex quantity.`,
    );
  return BigInt(value);
}

/** What a node's refusal means for the caller, in the catalogue's terms. */
function refusalError(node: EvmNode, method: string, refusal: NodeRefusal): LatchkeyError {
  const words = refusal.message.toLowerCase();
  if (words.includes('insufficient funds'))
    return new LatchkeyError('insufficient_funds', `${node.label}: ${refusal.message}`);
  if (words.includes('nonce too low') || words.includes('underpriced') || words.includes('nonce too high'))
    return new LatchkeyError('nonce_conflict', `${node.label}: ${refusal.message}`);
  if (method === 'eth_estimateGas' && (refusal.code === 3 || words.includes('revert')))
    return new LatchkeyError('transaction_reverted', `${node.label}: ${refusal.message}`);
  if (method === 'eth_sendRawTransaction')
    return new LatchkeyError('transaction_rejected', `${node.label}: ${refusal.message}`);
  return new LatchkeyError(
    'chain_unavailable',
    `${node.label}: ${method} failed with RPC error ${refusal.code}.`,
  );
}
