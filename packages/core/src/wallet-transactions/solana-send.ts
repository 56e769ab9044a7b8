import { base58, base64 } from '@scure/base';
import type { ApiKeyKind } from '../apps/repo.js';
import type { ResolvedOptions } from '../capability.js';
import { decodeTransaction } from '../chains/solana-encoding.js';
import { solanaTransactionFacts } from '../chains/solana-facts.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { WalletRecord } from '../wallets/repo.js';
import type { EvmNode, NodeRefusal } from './evm-node.js';
import { newSendRow } from './new-send-row.js';
import { callNode, isRecord, nodeCache } from './node-calls.js';
import type { WalletTransactionRecord } from './repo.js';
import type { SendTransactionRequest } from './schema.js';
import type { sendSteps } from './send-steps.js';
import { SOLANA_CHAIN_IDS, solanaNetworkOf, solanaNodeFor } from './solana-node.js';
import { readEnvelope, solanaAddress, systemTransfer, withBlockhash } from './solana-wire.js';
import { STALE_SECONDS } from './stale.js';

const COMMITMENT = 'confirmed';

/**
 * Sending from custodial Solana wallets: a recent blockhash, the wallets' policy gate (the plan
 * and gate a `sign_transaction` call goes through), `sendTransaction`, and the signature
 * followed with `getSignatureStatuses` (docs/wallets.md, "Sending"). No nonce: a transaction is
 * valid until its blockhash expires, and a resend of the same bytes is the same transaction.
 * `steps`: the EVM send's (send-steps.ts), so both write each step in one statement where the
 * storage can.
 */
export function solanaSender(
  k: Kernel,
  chains: ResolvedOptions['chains'],
  { advance, signHeld }: Pick<ReturnType<typeof sendSteps>, 'advance' | 'signHeld'>,
) {
  const repo = k.storage.walletTransactions;
  const nodeFor = nodeCache((network: 'mainnet' | 'testnet') => solanaNodeFor(chains, network));

  const rpc = (node: EvmNode, method: string, params: unknown[]) =>
    callNode(node, method, params, refusalError);

  async function latestBlockhash(node: EvmNode): Promise<string> {
    const result = await rpc(node, 'getLatestBlockhash', [{ commitment: COMMITMENT }]);
    const hash = isRecord(result) && isRecord(result.value) ? result.value.blockhash : undefined;
    if (typeof hash !== 'string' || !solanaAddress(hash))
      throw new LatchkeyError(
        'chain_invalid_response',
        `${node.label}: getLatestBlockhash has no blockhash.`,
      );
    return hash;
  }

  /** The unsigned (or partly signed) transaction the wallet is to sign, and what its row records. */
  async function prepare(
    wallet: WalletRecord,
    node: EvmNode,
    input: SendTransactionRequest,
  ): Promise<{ bytes: Uint8Array; to: string | null }> {
    if (input.sol_transfer) {
      const { to, lamports } = input.sol_transfer;
      const recipient = solanaAddress(to);
      if (!recipient)
        throw new LatchkeyError('invalid_field', 'sol_transfer.to is not a 32-byte base58 address.', {
          field: 'sol_transfer.to',
        });
      const from = base58.decode(wallet.public_address);
      return { bytes: systemTransfer(from, recipient, BigInt(lamports), await latestBlockhash(node)), to };
    }
    const { transaction, encoding } = input.sol_transaction!;
    const bytes = decodeTransaction(transaction, encoding);
    const envelope = readEnvelope(bytes);
    if (envelope.feePayer !== wallet.public_address)
      throw new LatchkeyError('fee_payer_not_wallet', undefined, { field: 'sol_transaction.transaction' });
    if (envelope.blockhash !== null) return { bytes, to: null };
    // Others' signatures cover the blockhash: it cannot be filled in after them.
    if (envelope.signedByAny)
      throw new LatchkeyError(
        'invalid_transaction',
        'A transaction already signed by others must carry its recent blockhash.',
        { field: 'sol_transaction.transaction' },
      );
    return { bytes: withBlockhash(bytes, envelope, await latestBlockhash(node)), to: null };
  }

  /**
   * `sendTransaction`, once. When the answer is lost the node is asked about the signature: known,
   * the transaction is submitted; otherwise it stays `signed` and the same key broadcasts it again.
   */
  async function broadcast(node: EvmNode, t: WalletTransactionRecord): Promise<WalletTransactionRecord> {
    const submitted = async () =>
      (await advance(t, ['signed'], { status: 'submitted', updated_at: k.now() })) ??
      (await repo.get(t.app_id, t.id))!;
    let answer: Awaited<ReturnType<EvmNode['call']>>;
    try {
      answer = await node.call(
        'sendTransaction',
        [t.raw_transaction, { encoding: 'base64', preflightCommitment: COMMITMENT }],
        { retries: 0 },
      );
    } catch (err) {
      if ((await signatureStatus(node, t.transaction_hash!).catch(() => null)) !== null) return submitted();
      throw err;
    }
    if (!('refusal' in answer)) return submitted();
    const words = answer.refusal.message.toLowerCase();
    // Sent before (a retried broadcast): the cluster has it.
    if (words.includes('already been processed')) return submitted();
    const error = refusalError(node, 'sendTransaction', answer.refusal);
    await repo.transition(t.app_id, t.id, ['signed'], {
      status: 'abandoned',
      error: error.message,
      raw_transaction: null,
      updated_at: k.now(),
    });
    throw error;
  }

  async function signatureStatus(node: EvmNode, signature: string) {
    const result = await rpc(node, 'getSignatureStatuses', [[signature], { searchTransactionHistory: true }]);
    const value = isRecord(result) && Array.isArray(result.value) ? result.value : undefined;
    if (value?.length !== 1)
      throw new LatchkeyError('chain_invalid_response', `${node.label}: getSignatureStatuses has no value.`);
    const status = value[0];
    if (status === null) return null;
    if (!isRecord(status))
      throw new LatchkeyError(
        'chain_invalid_response',
        `${node.label}: a signature status is not an object.`,
      );
    return status;
  }

  /** Lamports paid, from the transaction's meta; null when the node does not say. */
  async function feePaid(node: EvmNode, signature: string): Promise<string | null> {
    const tx = await rpc(node, 'getTransaction', [
      signature,
      { encoding: 'json', commitment: COMMITMENT, maxSupportedTransactionVersion: 0 },
    ]).catch(() => null);
    const fee = isRecord(tx) && isRecord(tx.meta) ? tx.meta.fee : undefined;
    return typeof fee === 'number' && Number.isSafeInteger(fee) && fee >= 0 ? String(fee) : null;
  }

  return {
    /** Builds (or completes), signs under the policies, stores and sends the wallet's transaction. */
    async send(wallet: WalletRecord, input: SendTransactionRequest, keyKind: ApiKeyKind) {
      const node = nodeFor(wallet.network);
      if (input.idempotency_key !== undefined) {
        const first = await repo.findByIdempotencyKey(wallet.app_id, wallet.id, input.idempotency_key);
        if (first?.status === 'signed') return broadcast(node, first);
        // Left by a process that died before signing: nothing was signed or sent, so the retry
        // ends it rather than answering `preparing` for ever.
        if (first?.status === 'preparing' && first.updated_at <= k.now() - STALE_SECONDS)
          return (
            (await repo.transition(wallet.app_id, first.id, ['preparing'], {
              status: 'abandoned',
              error: 'abandoned: never signed (recovered)',
              updated_at: k.now(),
            })) ?? (await repo.get(wallet.app_id, first.id))!
          );
        if (first) return first;
      }
      const { bytes, to } = await prepare(wallet, node, input);
      const facts = solanaTransactionFacts(bytes, wallet.public_address);
      const { transaction: t, created } = await repo.insertOnce(
        newSendRow({
          id: k.id('wtx'),
          app_id: wallet.app_id,
          wallet_id: wallet.id,
          chain_id: SOLANA_CHAIN_IDS[wallet.network],
          to,
          value: facts.lamports.toString(),
          idempotency_key: input.idempotency_key ?? null,
          now: k.now(),
        }),
      );
      // The same key, sent concurrently: the first one's answer.
      if (!created) return t;
      let signed: Awaited<ReturnType<typeof signHeld>>;
      try {
        signed = await signHeld(
          wallet,
          { sol_transaction: { transaction: base64.encode(bytes), encoding: 'base64' } },
          keyKind,
        );
      } catch (err) {
        await repo.transition(wallet.app_id, t.id, ['preparing'], {
          status: 'abandoned',
          error: err instanceof LatchkeyError ? err.errorType : 'internal_error',
          updated_at: k.now(),
        });
        throw err;
      }
      // The signature leaves the process only once stored, its audit entry with it (as an EVM send's).
      const stored = await advance(
        t,
        ['preparing'],
        {
          status: 'signed',
          raw_transaction: signed.result.signed_transaction,
          // The fee payer's signature is the transaction's id.
          transaction_hash: signed.result.signature ?? null,
          updated_at: k.now(),
        },
        signed.entry,
      );
      if (!stored)
        throw new LatchkeyError('internal_error', 'The transaction left `preparing` while it was signed.');
      return broadcast(node, stored);
    },

    /**
     * Reads the signature's status: confirmed or finalized settles the row (its slot, and the fee
     * from `getTransaction`); unknown with its blockhash expired, it never lands: dropped.
     */
    async refresh(t: WalletTransactionRecord): Promise<WalletTransactionRecord> {
      if (t.status !== 'submitted' || !t.transaction_hash) return t;
      const node = nodeFor(solanaNetworkOf(t.chain_id));
      const status = await signatureStatus(node, t.transaction_hash);
      if (status === null) {
        const blockhash = t.raw_transaction ? readEnvelope(base64.decode(t.raw_transaction)).blockhash : null;
        if (blockhash === null) return t;
        const valid = await rpc(node, 'isBlockhashValid', [blockhash, { commitment: COMMITMENT }]);
        if (!isRecord(valid) || typeof valid.value !== 'boolean')
          throw new LatchkeyError('chain_invalid_response', `${node.label}: isBlockhashValid has no value.`);
        if (valid.value) return t;
        // Landed between the two reads: the next read settles it.
        if ((await signatureStatus(node, t.transaction_hash)) !== null) return t;
        return (
          (await repo.transition(t.app_id, t.id, ['submitted'], {
            status: 'dropped',
            error: 'its blockhash expired before it landed',
            raw_transaction: null,
            updated_at: k.now(),
          })) ?? t
        );
      }
      const level = status.confirmationStatus;
      if (level !== 'confirmed' && level !== 'finalized') return t;
      const slot = status.slot;
      if (typeof slot !== 'number' || !Number.isSafeInteger(slot) || slot < 0)
        throw new LatchkeyError('chain_invalid_response', `${node.label}: a signature status has no slot.`);
      const failed = status.err !== null && status.err !== undefined;
      const moved = await advance(t, ['submitted'], {
        status: failed ? 'failed' : 'confirmed',
        block_number: String(slot),
        fee: await feePaid(node, t.transaction_hash),
        error: failed ? JSON.stringify(status.err).slice(0, 300) : null,
        raw_transaction: null,
        updated_at: k.now(),
      });
      return moved ?? (await repo.get(t.app_id, t.id))!;
    },
  };
}

/** What a cluster's refusal means for the caller, in the catalogue's terms. */
function refusalError(node: EvmNode, method: string, refusal: NodeRefusal): LatchkeyError {
  const words = refusal.message.toLowerCase();
  if (method === 'sendTransaction') {
    // The fee payer cannot pay; not "insufficient funds for rent", a recipient left below rent.
    if (
      (words.includes('insufficient funds') && !words.includes('rent')) ||
      words.includes('no record of a prior credit')
    )
      return new LatchkeyError('insufficient_funds', `${node.label}: ${refusal.message}`);
    return new LatchkeyError('transaction_rejected', `${node.label}: ${refusal.message}`);
  }
  return new LatchkeyError(
    'chain_unavailable',
    `${node.label}: ${method} failed with RPC error ${refusal.code}.`,
  );
}
