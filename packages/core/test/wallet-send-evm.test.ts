import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryStorage } from '@latchkey/memory';
import { ContractFactory, Interface, JsonRpcProvider, Wallet } from 'ethers';
import solc from 'solc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../src/ports/storage.js';
import { newSendRow } from '../src/wallet-transactions/new-send-row.js';
import { ANVIL_KEYS, type AnvilNode, minedCount, startAnvil } from './anvil-node.js';
import { expectErrorShape, testApp, testLatchkey } from './helpers.js';
import { expectOneSendRecorded } from './send-records.js';

/**
 * Sending from custodial ethereum wallets against a real node: anvil, with ethers reading the
 * chain as the independent oracle (balances, nonces, the transactions the node holds).
 */
const CHAIN_ID = 31337;
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';

// The least of an ERC-20 a transfer and a balance read need, plus an open mint for the test.
const TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract SendTestToken {
    uint8 public constant decimals = 6;
    mapping(address => uint256) public balanceOf;
    event Transfer(address indexed from, address indexed to, uint256 value);
    function mint(address to, uint256 value) external { balanceOf[to] += value; }
    function transfer(address to, uint256 value) external returns (bool) {
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}
`;

let node: AnvilNode;
let provider: JsonRpcProvider;

beforeAll(async () => {
  node = await startAnvil(CHAIN_ID);
  provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, cacheTimeout: -1 });
});

afterAll(async () => {
  provider?.destroy();
  await node?.stop();
});

const chains = (url: string, fetch?: typeof globalThis.fetch) => ({
  ethereum: { mainnet: { url, chainId: CHAIN_ID } },
  cacheSeconds: 0,
  ...(fetch ? { fetch } : {}),
});
const ONE_ETH = 10n ** 18n;

/** A test App on memory storage (kept, so a test can play a dead process's part in it). */
async function sendingApp(
  url: string,
  fetch?: typeof globalThis.fetch,
  {
    oneStep = true,
    prepare,
  }: { oneStep?: boolean; prepare?: (storage: Storage) => Promise<void> | void } = {},
) {
  const storage = memoryStorage();
  // A storage without the optional one-step write: the send's fallback (entry, then transition).
  if (!oneStep) delete (storage.walletTransactions as { advance?: unknown }).advance;
  await prepare?.(storage);
  // 5xx reports (the unconfigured chain's 503) are kept, not logged.
  const internalErrors: unknown[] = [];
  const { latchkey, clock } = testLatchkey({
    storage,
    chains: chains(url, fetch) as never,
    onInternalError: (err) => internalErrors.push(err),
  });
  const t = await testApp(latchkey);
  let users = 0;
  return {
    ...t,
    storage,
    clock,
    async wallet(walletType: string) {
      const user = await t.call('POST', '/v1/auth/users', { email: `u${users++}@example.com` });
      const res = await t.call('POST', '/v1/wallets/create', {
        user_id: user.body.user_id,
        wallet_type: walletType,
      });
      expect(res.status).toBe(200);
      return res.body as { id: string; public_address: string; user_id: string };
    },
    balance: (walletId: string, token: string) =>
      t.call('POST', '/v1/wallets/balance', { wallet_id: walletId, token_symbol: token }),
  };
}

async function fundedApp(url = node.url, fetch?: typeof globalThis.fetch) {
  const t = await sendingApp(url, fetch);
  const wallet = await t.wallet('ethereum');
  await provider.send('anvil_setBalance', [wallet.public_address, `0x${(10n * ONE_ETH).toString(16)}`]);
  const send = (eth: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    t.call('POST', `/v1/wallets/${wallet.id}/send_transaction`, {
      eth_transaction: { chain_id: String(CHAIN_ID), ...eth },
      ...extra,
    });
  const read = (id: string) => t.call('GET', `/v1/wallets/${wallet.id}/transactions/${id}`);
  return { t, wallet, send, read };
}

const recipient = () => Wallet.createRandom().address;

describe('sending from an ethereum wallet (anvil)', () => {
  it('fills nonce, gas and EIP-1559 fees, broadcasts, and follows the receipt', async () => {
    const { t, wallet, send, read } = await fundedApp();
    const to = recipient();
    const res = await send({ to, value: '1234' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'submitted', nonce: 0 });
    expect(res.body.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);

    // The oracle: the node holds a type-2 transaction from the wallet with these fields.
    const onChain = await provider.getTransaction(res.body.transaction_hash);
    expect(onChain).not.toBeNull();
    expect(onChain!.from).toBe(wallet.public_address);
    expect(onChain!.type).toBe(2);
    expect(onChain!.nonce).toBe(0);
    expect(onChain!.to).toBe(to);
    expect(onChain!.value).toBe(1234n);
    expect(onChain!.maxPriorityFeePerGas! >= 1_000_000_000n).toBe(true);
    expect(onChain!.maxFeePerGas! >= onChain!.maxPriorityFeePerGas!).toBe(true);
    // eth_estimateGas (21000 for a transfer) with its margin.
    expect(onChain!.gasLimit).toBe(25_200n);
    expect(await provider.getBalance(to)).toBe(1234n);

    const followed = await read(res.body.transaction_id);
    expect(followed.status).toBe(200);
    const receipt = (await provider.getTransactionReceipt(res.body.transaction_hash))!;
    expect(followed.body).toMatchObject({
      id: res.body.transaction_id,
      status: 'confirmed',
      nonce: 0,
      block_number: String(receipt.blockNumber),
      gas_used: receipt.gasUsed.toString(),
      effective_gas_price: receipt.gasPrice.toString(),
      fee: (receipt.gasUsed * receipt.gasPrice).toString(),
    });

    const second = await send({ to, value: '1' });
    expect(second.body.nonce).toBe(1);
    const list = await t.call('GET', `/v1/wallets/${wallet.id}/transactions?limit=1`);
    expect(list.status).toBe(200);
    expect(list.body.transactions.map((x: { id: string }) => x.id)).toEqual([second.body.transaction_id]);
    const older = await t.call(
      'GET',
      `/v1/wallets/${wallet.id}/transactions?cursor=${list.body.next_cursor}`,
    );
    expect(older.body.transactions.map((x: { id: string }) => x.id)).toEqual([res.body.transaction_id]);
    expect(older.body.next_cursor).toBeNull();

    // The events of the transaction's life are on the App's event log.
    const events = await t.call('GET', '/v1/events?limit=100');
    const types = events.body.events?.map((e: { type: string }) => e.type) ?? [];
    expect(types).toContain('wallet.transaction.sent');
    expect(types).toContain('wallet.transaction.confirmed');
  });

  it('sends once per idempotency key', async () => {
    const { send } = await fundedApp();
    const to = recipient();
    const [a, b] = await Promise.all([
      send({ to, value: '5' }, { idempotency_key: 'order-17' }),
      send({ to, value: '5' }, { idempotency_key: 'order-17' }),
    ]);
    expect(a.status).toBe(200);
    expect(b.body.transaction_id).toBe(a.body.transaction_id);
    const again = await send({ to, value: '5' }, { idempotency_key: 'order-17' });
    expect(again.body.transaction_id).toBe(a.body.transaction_id);
    expect(await provider.getBalance(to)).toBe(5n);
  });

  it('100 concurrent sends from one wallet take 100 consecutive nonces and all mine', async () => {
    const { wallet, send } = await fundedApp();
    const to = recipient();
    const start = await provider.getTransactionCount(wallet.public_address);
    const results = await Promise.all(Array.from({ length: 100 }, () => send({ to, value: '1' })));
    expect(results.map((r) => r.status)).toEqual(Array(100).fill(200));
    const nonces = results.map((r) => r.body.nonce).sort((a, b) => a - b);
    expect(nonces).toEqual(Array.from({ length: 100 }, (_, i) => start + i));
    expect(await minedCount(provider, wallet.public_address, start + 100)).toBe(start + 100);
    expect(await provider.getBalance(to)).toBe(100n);
  });

  it('refuses a send the policies refuse: not broadcast, in the audit trail, nonce not lost', async () => {
    const { t, wallet, send } = await fundedApp();
    const allowed = recipient();
    const policy = await t.call('POST', '/v1/wallets/policies', {
      name: 'Only one payee',
      wallet_id: wallet.id,
      rules: [{ kind: 'evm_to_allowlist', addresses: [allowed] }],
    });
    expect(policy.status).toBe(200);
    const stranger = recipient();
    const refused = await send({ to: stranger, value: '7' });
    expect(refused.status).toBe(403);
    expect(expectErrorShape(refused).error_type).toBe('policy_violation');
    // The node saw nothing from the wallet.
    expect(await provider.getTransactionCount(wallet.public_address, 'pending')).toBe(0);
    expect(await provider.getBalance(stranger)).toBe(0n);
    const trail = await t.call('GET', `/v1/wallets/${wallet.id}/signatures`);
    expect(trail.body.signatures[0]).toMatchObject({ decision: 'refused', method: 'sign_transaction' });
    // The refused send's nonce is the next one used: no gap blocks the wallet.
    const ok = await send({ to: allowed, value: '7' });
    expect(ok.status).toBe(200);
    expect(ok.body.nonce).toBe(0);
    expect(await provider.getBalance(allowed)).toBe(7n);
  });

  it.each([
    ['in one step (WalletTransactionRepo.advance)', true],
    ['on a storage without advance (the entry, then the transition)', false],
  ])('stores an allowed send’s audit entry with its signed bytes, and its events: %s', async (_, oneStep) => {
    const t = await sendingApp(node.url, undefined, { oneStep });
    expect(typeof t.storage.walletTransactions.advance).toBe(oneStep ? 'function' : 'undefined');
    const wallet = await t.wallet('ethereum');
    await provider.send('anvil_setBalance', [wallet.public_address, `0x${ONE_ETH.toString(16)}`]);
    const heard: string[] = [];
    t.latchkey.events.on('*', (e) => void heard.push(e.type));
    const sent = await t.call('POST', `/v1/wallets/${wallet.id}/send_transaction`, {
      eth_transaction: { chain_id: String(CHAIN_ID), to: recipient(), value: '1' },
    });
    expect(sent.status).toBe(200);
    await expectOneSendRecorded(t, wallet.id, heard);
  });

  it.each([
    ['its one-step write (advance) fails: the entry is still written', true],
    ['its audit entry fails on a storage without advance: the row is not signed', false],
  ])('broadcasts nothing when the signed write fails, %s', async (_, oneStep) => {
    // The write fails as a database would, from the moment `armed` is set. Replaced before the
    // Latchkey is made, which takes the storage's methods as they are then.
    const lost = new Error('the disk is full');
    let armed = false;
    const failing = (repo: object, methods: string[], fails: (...args: never[]) => boolean) => {
      const target = repo as Record<string, (...args: unknown[]) => Promise<unknown>>;
      for (const m of methods.filter((name) => target[name])) {
        const original = target[m]!.bind(repo);
        target[m] = (...args) =>
          armed && (fails as (...a: unknown[]) => boolean)(...args)
            ? Promise.reject(lost)
            : original(...args);
      }
    };
    const t = await sendingApp(node.url, undefined, {
      oneStep,
      // Both the storage's repos and its transactions' (where the events layer writes).
      prepare: (storage) =>
        storage.transaction(async (tx) => {
          for (const s of [storage, tx]) replace(s);
        }),
    });
    function replace(storage: Storage) {
      oneStep
        ? failing(
            storage.walletTransactions,
            ['advance', 'advanceWithEvents'],
            (_t: unknown, _from: unknown, patch: { status?: string }) => patch.status === 'signed',
          )
        : failing(
            storage.walletSignatures,
            ['insert', 'insertWithEvents'],
            (entry: { decision: string }) => entry.decision === 'allowed',
          );
    }
    const wallet = await t.wallet('ethereum');
    await provider.send('anvil_setBalance', [wallet.public_address, `0x${ONE_ETH.toString(16)}`]);
    armed = true;
    const sent = await t.call('POST', `/v1/wallets/${wallet.id}/send_transaction`, {
      eth_transaction: { chain_id: String(CHAIN_ID), to: recipient(), value: '1' },
    });
    expect(sent.status).toBe(500);
    expect(await provider.getTransactionCount(wallet.public_address, 'pending')).toBe(0);
    armed = false;
    const trail = await t.call('GET', `/v1/wallets/${wallet.id}/signatures`);
    expect(trail.body.signatures.map((s: { decision: string }) => s.decision)).toEqual(
      oneStep ? ['allowed'] : [],
    );
    const list = await t.call('GET', `/v1/wallets/${wallet.id}/transactions`);
    expect(list.body.transactions.map((x: { status: string }) => x.status)).not.toContain('signed');
  });

  it('trusts the sequence after a clean send: no pending count read; a nonce refusal ends the trust', async () => {
    const methods: string[] = [];
    const counting: typeof fetch = (input, init) => {
      methods.push(JSON.parse(String(init?.body)).method);
      return fetch(input, init);
    };
    const { t, wallet, send } = await fundedApp(node.url, counting);
    const counts = () => methods.filter((m) => m === 'eth_getTransactionCount').length;
    const to = recipient();
    const fees = {
      gas_limit: '21000',
      max_fee_per_gas: '5000000000',
      max_priority_fee_per_gas: '1000000000',
    };
    expect((await send({ to, value: '1', ...fees })).body.nonce).toBe(0);
    expect(counts()).toBe(1);
    // Within the trusted window: the nonce from storage alone, one node call (the broadcast).
    const before = methods.length;
    expect((await send({ to, value: '1', ...fees })).body.nonce).toBe(1);
    expect(methods.slice(before)).toEqual(['eth_sendRawTransaction']);

    // The key used elsewhere takes nonce 2 behind Latchkey's back (signed here, sent by ethers).
    const outside = await t.call('POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
      eth_transaction: { chain_id: String(CHAIN_ID), to, value: '5', nonce: '2', ...fees },
    });
    await (await provider.broadcastTransaction(outside.body.signed_transaction)).wait();
    // Still trusted, the send takes 2, which the node refuses: a clear 409, and the trust ends.
    const refused = await send({ to, value: '1', ...fees });
    expect(refused.status).toBe(409);
    expect(expectErrorShape(refused).error_type).toBe('nonce_conflict');
    // So the next send reads the count and takes 3, not the refused 2 given back.
    const next = await send({ to, value: '1', ...fees });
    expect(next.status).toBe(200);
    expect(next.body.nonce).toBe(3);
    expect(counts()).toBe(2);
    // And past the window it reads the count again.
    t.clock.advance(6);
    expect((await send({ to, value: '1', ...fees })).body.nonce).toBe(4);
    expect(counts()).toBe(3);
    expect(await minedCount(provider, wallet.public_address, 5)).toBe(5);
  });

  it('answers clear 4xx for funds, reverts, unknown chains and bad fields', async () => {
    const { t, wallet, send } = await fundedApp();
    const poor = await send({ to: recipient(), value: (100n * ONE_ETH).toString() });
    expect(poor.status).toBe(400);
    expect(expectErrorShape(poor).error_type).toBe('insufficient_funds');
    // With its gas given nothing is estimated: the node's own refusal of the signed overdraft
    // says so, and its nonce is given back (the next send takes it).
    const overdraft = await send({ to: recipient(), value: (100n * ONE_ETH).toString(), gas_limit: '21000' });
    expect(overdraft.status).toBe(400);
    expect(expectErrorShape(overdraft).error_type).toBe('insufficient_funds');
    expect(await provider.getTransactionCount(wallet.public_address, 'pending')).toBe(0);

    const otherChain = await t.call('POST', `/v1/wallets/${wallet.id}/send_transaction`, {
      eth_transaction: { chain_id: '137', to: recipient() },
    });
    expect(otherChain.status).toBe(503);
    expect(expectErrorShape(otherChain).error_type).toBe('chain_not_configured');

    for (const bad of [
      { to: 'nope' },
      { to: recipient(), value: '-1' },
      { to: recipient(), data: '0x1' },
      { to: recipient(), max_fee_per_gas: '1', max_priority_fee_per_gas: '2' },
      { to: recipient(), nonce: '3' },
    ]) {
      const res = await send(bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expectErrorShape(res);
    }
    const unknown = await t.call('GET', `/v1/wallets/${wallet.id}/transactions/wtx_nothing`);
    expect(unknown.status).toBe(404);
    expect(expectErrorShape(unknown).error_type).toBe('transaction_not_found');
    expect(await provider.getTransactionCount(wallet.public_address, 'pending')).toBe(0);

    const sol = await t.wallet('solana');
    const mismatch = await t.call('POST', `/v1/wallets/${sol.id}/send_transaction`, {
      eth_transaction: { chain_id: String(CHAIN_ID), to: recipient() },
    });
    expect(mismatch.status).toBe(400);
    expect(expectErrorShape(mismatch).error_type).toBe('wallet_type_mismatch');
    // The overdraft's nonce was given back: the first send that lands takes 0.
    const next = await send({ to: recipient(), value: '1' });
    expect(next.status).toBe(200);
    expect(next.body.nonce).toBe(0);
  });

  it('sends an ERC-20 transfer that moves the balance wallets/balance reads', async () => {
    const { t } = await fundedApp();
    const output = JSON.parse(
      solc.compile(
        JSON.stringify({
          language: 'Solidity',
          sources: { 'T.sol': { content: TOKEN_SOURCE } },
          settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
        }),
      ),
    );
    const { abi, evm } = output.contracts['T.sol'].SendTestToken;
    const deployer = new Wallet(ANVIL_KEYS[0], provider);
    const token = await new ContractFactory(abi, `0x${evm.bytecode.object}`, deployer).deploy();
    await token.waitForDeployment();
    await provider.send('anvil_setCode', [USDC, await provider.getCode(await token.getAddress())]);
    const usdc = token.attach(USDC).connect(deployer) as typeof token;
    const sender = await t.wallet('ethereum');
    await provider.send('anvil_setBalance', [sender.public_address, `0x${ONE_ETH.toString(16)}`]);
    await (await usdc.getFunction('mint')(sender.public_address, 5_000_000n)).wait();
    const payee = await t.wallet('ethereum');

    const data = new Interface(abi).encodeFunctionData('transfer', [payee.public_address, 1_250_000n]);
    const res = await t.call('POST', `/v1/wallets/${sender.id}/send_transaction`, {
      eth_transaction: { chain_id: String(CHAIN_ID), to: USDC, data },
    });
    expect(res.status).toBe(200);
    await provider.waitForTransaction(res.body.transaction_hash, 1, 10_000);
    const followed = await t.call('GET', `/v1/wallets/${sender.id}/transactions/${res.body.transaction_id}`);
    expect(followed.body.status).toBe('confirmed');
    expect((await t.balance(payee.id, 'USDC')).body.balance).toBe('1.25');
    expect((await t.balance(sender.id, 'USDC')).body.balance).toBe('3.75');

    // A transfer of more than the wallet holds reverts in the estimate: refused, not sent.
    const tooMuch = new Interface(abi).encodeFunctionData('transfer', [payee.public_address, 10n ** 12n]);
    const reverted = await t.call('POST', `/v1/wallets/${sender.id}/send_transaction`, {
      eth_transaction: { chain_id: String(CHAIN_ID), to: USDC, data: tooMuch },
    });
    expect(reverted.status).toBe(400);
    expect(expectErrorShape(reverted).error_type).toBe('transaction_reverted');
  });
});

describe('replacing a transaction anvil holds in its mempool (auto-mining off)', () => {
  it('speed_up replaces it at the same nonce with higher fees; cancel empties the next one', async () => {
    const { t, wallet, send, read } = await fundedApp();
    await provider.send('evm_setAutomine', [false]);
    try {
      const to = recipient();
      const first = await send({ to, value: '11' });
      expect(first.body.status).toBe('submitted');
      const original = (await provider.getTransaction(first.body.transaction_hash))!;
      expect(original.blockNumber).toBeNull();

      const faster = await t.call(
        'POST',
        `/v1/wallets/${wallet.id}/transactions/${first.body.transaction_id}/speed_up`,
        {},
      );
      expect(faster.status).toBe(200);
      expect(faster.body.nonce).toBe(first.body.nonce);
      expect(faster.body.transaction_hash).not.toBe(first.body.transaction_hash);
      const replacement = (await provider.getTransaction(faster.body.transaction_hash))!;
      expect(replacement.nonce).toBe(original.nonce);
      expect(replacement.to).toBe(to);
      expect(replacement.maxFeePerGas! > original.maxFeePerGas!).toBe(true);
      expect(replacement.maxPriorityFeePerGas! > original.maxPriorityFeePerGas!).toBe(true);
      // The node dropped the original from its pool for the replacement.
      expect(await provider.getTransaction(first.body.transaction_hash)).toBeNull();
      expect((await read(first.body.transaction_id)).body).toMatchObject({
        status: 'replaced',
        replaced_by: faster.body.transaction_id,
      });
      // A replaced transaction is not replaced again.
      const twice = await t.call(
        'POST',
        `/v1/wallets/${wallet.id}/transactions/${first.body.transaction_id}/speed_up`,
        {},
      );
      expect(twice.status).toBe(409);
      expect(expectErrorShape(twice).error_type).toBe('transaction_not_replaceable');

      const second = await send({ to, value: '22' });
      expect(second.body.nonce).toBe(first.body.nonce + 1);
      const cancelled = await t.call(
        'POST',
        `/v1/wallets/${wallet.id}/transactions/${second.body.transaction_id}/cancel`,
        {},
      );
      expect(cancelled.status).toBe(200);
      const empty = (await provider.getTransaction(cancelled.body.transaction_hash))!;
      expect(empty).toMatchObject({ nonce: second.body.nonce, to: wallet.public_address, value: 0n });

      await provider.send('evm_mine', []);
      expect((await read(faster.body.transaction_id)).body.status).toBe('confirmed');
      expect((await read(cancelled.body.transaction_id)).body.status).toBe('confirmed');
      // Only the sped-up value arrived; the cancelled one never did.
      expect(await provider.getBalance(to)).toBe(11n);
    } finally {
      await provider.send('evm_setAutomine', [true]);
    }
  });
});

/**
 * A proxy in front of anvil that passes every call but cuts the connection of the first
 * `eth_sendRawTransaction` after forwarding it: the node got the transaction, the sender never
 * hears so.
 */
/**
 * A send's row as a process leaves it between signing and broadcasting: nonce taken, signed by
 * the wallet, stored `signed` under an idempotency key; the raw bytes not sent to the node.
 */
async function signedRow(
  t: Awaited<ReturnType<typeof fundedApp>>['t'],
  walletId: string,
  id: string,
  key: string,
) {
  const to = recipient();
  const fields = {
    gas_limit: '21000',
    max_fee_per_gas: '5000000000',
    max_priority_fee_per_gas: '1000000000',
  };
  const repo = t.storage.walletTransactions;
  const { transaction } = await repo.insertWithNextNonce(
    newSendRow({
      id,
      app_id: t.app_id,
      wallet_id: walletId,
      chain_id: String(CHAIN_ID),
      to,
      value: '5',
      ...fields,
      idempotency_key: key,
      now: t.clock.now() / 1000,
    }),
    0,
  );
  const signed = await t.call('POST', `/v1/wallets/${walletId}/sign_transaction`, {
    eth_transaction: {
      chain_id: String(CHAIN_ID),
      to,
      value: '5',
      nonce: String(transaction.nonce),
      ...fields,
    },
  });
  expect(signed.status).toBe(200);
  await repo.transition(t.app_id, id, ['preparing'], {
    status: 'signed',
    raw_transaction: signed.body.signed_transaction,
    transaction_hash: signed.body.transaction_hash,
  });
  return { to, raw: signed.body.signed_transaction as string };
}

/**
 * A node that refuses every broadcast in words Latchkey does not know and cannot be asked for a
 * transaction (the connection drops); everything else goes to `target`.
 */
async function refusingProxy(target: string) {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const call = JSON.parse(body.toString()) as { id: unknown; method: string };
    if (call.method === 'eth_getTransactionByHash') return void res.destroy();
    if (call.method === 'eth_sendRawTransaction')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: call.id,
          error: { code: -32000, message: 'a refusal in no known words' },
        }),
      );
    const upstream = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    res
      .writeHead(upstream.status, { 'content-type': 'application/json' })
      .end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function cuttingProxy(target: string) {
  let cut = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const method = JSON.parse(body.toString()).method as string;
    const upstream = new URL(target);
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json' },
      },
      (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          if (method === 'eth_sendRawTransaction' && cut < 1) {
            cut++;
            res.destroy();
            return;
          }
          res
            .writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' })
            .end(Buffer.concat(parts));
        });
      },
    );
    forward.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cuts: () => cut,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('faults', () => {
  it('reconciles a broadcast whose answer was cut: the node has it, so it is submitted', async () => {
    const proxy = await cuttingProxy(node.url);
    try {
      const { wallet, send, read } = await fundedApp(proxy.url);
      const to = recipient();
      const res = await send({ to, value: '3' });
      expect(proxy.cuts()).toBe(1);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('submitted');
      expect(await provider.getBalance(to)).toBe(3n);
      // The next send takes the next nonce: no gap, no collision.
      const next = await send({ to, value: '4' });
      expect(next.body.nonce).toBe(res.body.nonce + 1);
      // Anvil mines an auto-mined block just after answering the send: wait for its receipt.
      await provider.waitForTransaction(next.body.transaction_hash, 1, 10_000);
      expect((await read(next.body.transaction_id)).body.status).toBe('confirmed');
      expect(await provider.getTransactionCount(wallet.public_address)).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('a broadcast the node already holds is submitted, whatever its words for that (anvil: already imported)', async () => {
    // What a concurrent send with the same idempotency key does: it finds the first one's row
    // signed, the first one's broadcast already in the node's mempool, and broadcasts it again.
    const { t, wallet, send, read } = await fundedApp();
    const { to, raw } = await signedRow(t, wallet.id, 'wtx_twice', 'pay-once');
    await provider.send('evm_setAutomine', [false]);
    try {
      await provider.broadcastTransaction(raw);
      const again = await send({ to, value: '5' }, { idempotency_key: 'pay-once' });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ transaction_id: 'wtx_twice', status: 'submitted' });
      await provider.send('evm_mine', []);
    } finally {
      await provider.send('evm_setAutomine', [true]);
    }
    expect(await provider.getBalance(to)).toBe(5n);
    expect((await read('wtx_twice')).body.status).toBe('confirmed');
  });

  it('a refused broadcast the node cannot be asked about is not given up: it stays signed for a retry', async () => {
    const proxy = await refusingProxy(node.url);
    try {
      const { t, wallet, send } = await fundedApp(proxy.url);
      const { to } = await signedRow(t, wallet.id, 'wtx_unknown', 'pay-later');
      const again = await send({ to, value: '5' }, { idempotency_key: 'pay-later' });
      expect(again.status).toBeGreaterThanOrEqual(500);
      expect((await t.storage.walletTransactions.get(t.app_id, 'wtx_unknown'))!.status).toBe('signed');
    } finally {
      await proxy.close();
    }
  });

  it('recovers what a process killed mid-send left: a nonce never signed is reused, a signed transaction is broadcast', async () => {
    const { t, wallet, send } = await fundedApp();
    // A process that died after taking a nonce and before signing: its row stays `preparing`.
    const to = recipient();
    const base = (id: string) =>
      newSendRow({
        id,
        app_id: t.app_id,
        wallet_id: wallet.id,
        chain_id: String(CHAIN_ID),
        to,
        value: '9',
        gas_limit: '21000',
        max_fee_per_gas: '5000000000',
        max_priority_fee_per_gas: '1000000000',
        idempotency_key: null,
        now: t.clock.now() / 1000,
      });
    const repo = t.storage.walletTransactions;
    const dead = await repo.insertWithNextNonce(base('wtx_dead_preparing'), 0);
    expect(dead.transaction.nonce).toBe(0);

    // And one that died after signing and storing, before the broadcast: signed by the wallet.
    const signed = await t.call('POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
      eth_transaction: {
        chain_id: String(CHAIN_ID),
        to,
        value: '9',
        nonce: '1',
        gas_limit: '21000',
        max_fee_per_gas: '5000000000',
        max_priority_fee_per_gas: '1000000000',
      },
    });
    expect(signed.status).toBe(200);
    const second = await repo.insertWithNextNonce(base('wtx_dead_signed'), 0);
    expect(second.transaction.nonce).toBe(1);
    await repo.transition(t.app_id, 'wtx_dead_signed', ['preparing'], {
      status: 'signed',
      raw_transaction: signed.body.signed_transaction,
      transaction_hash: signed.body.transaction_hash,
    });

    // Fresh, they belong to a process that may still be working: left alone, the next nonce is 2,
    // which the node cannot mine past the gap.
    const early = await send({ to, value: '1' });
    expect(early.body.nonce).toBe(2);
    expect(await provider.getTransactionCount(wallet.public_address)).toBe(0);

    // A minute later they are taken as dead: the unsigned nonce is given back and used by this
    // send, the signed transaction is broadcast, and the wallet's queue drains.
    t.clock.advance(61);
    const late = await send({ to, value: '1' });
    expect(late.status).toBe(200);
    expect(late.body.nonce).toBe(0);
    expect(await provider.getTransactionCount(wallet.public_address)).toBe(3);
    expect(await provider.getBalance(to)).toBe(9n + 1n + 1n);
    expect((await repo.get(t.app_id, 'wtx_dead_preparing'))!.status).toBe('abandoned');
    expect((await repo.get(t.app_id, 'wtx_dead_signed'))!.status).toBe('submitted');
  });
});
