import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { createLatchkey, type Latchkey, type WalletTransactionRecord } from '@latchkey/core';
import { JsonRpcProvider, Wallet } from 'ethers';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilNode, minedCount, startAnvil } from '../../core/test/anvil-node.js';
import { type SolanaPeer, startSolanaPeer } from '../../core/test/solana-rpc-peer.js';
import { DATABASE_URL, type Harness, postgresTarget, targets } from './targets.js';

/**
 * Sends from one wallet at once, on real storage against a real node (anvil): the nonce sequence
 * in storage must hand out consecutive nonces with no gap and no collision, whatever the
 * concurrency, across processes on Postgres. Anvil (through ethers) says what was mined.
 */
const SECRET = 'wallet-send-test-secret-0123456789abcdef';
const CHAIN_ID = 31337;

let node: AnvilNode;
let provider: JsonRpcProvider;
// Solana: LiteSVM behind a JSON-RPC server (core's test peer).
let solana: SolanaPeer;

beforeAll(async () => {
  [node, solana] = await Promise.all([startAnvil(CHAIN_ID), startSolanaPeer()]);
  provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, cacheTimeout: -1 });
});

afterAll(async () => {
  provider?.destroy();
  await Promise.all([node?.stop(), solana?.stop()]);
});

const latchkeyOn = (h: Harness) =>
  createLatchkey({
    storage: h.storage,
    secret: SECRET,
    chains: {
      ethereum: { mainnet: { url: node.url, chainId: CHAIN_ID } },
      solana: { mainnet: solana.url, testnet: solana.url },
    },
  });

/** An App with one funded ethereum wallet. */
async function fundedWallet(latchkey: Latchkey) {
  const keys = await latchkey.apps.create({ name: 'Sends' });
  const user = await latchkey.users.create(keys.app_id, {});
  const wallet = await latchkey.wallets.create(keys.app_id, {
    user_id: user.user_id,
    wallet_type: 'ethereum',
  });
  await provider.send('anvil_setBalance', [wallet.public_address, '0x8ac7230489e80000']); // 10 ETH
  return { keys, wallet };
}

/** A send's row before its nonce is taken (what core's newSendRow makes). */
const unsent = (appId: string, walletId: string, id: string, idempotencyKey: string | null = null) =>
  ({
    id,
    app_id: appId,
    wallet_id: walletId,
    chain_id: String(CHAIN_ID),
    kind: 'send',
    status: 'preparing',
    to: `0x${'22'.repeat(20)}`,
    value: '1',
    data: null,
    gas_limit: '21000',
    max_fee_per_gas: '5000000000',
    max_priority_fee_per_gas: '1000000000',
    transaction_hash: null,
    raw_transaction: null,
    replaces: null,
    replaced_by: null,
    idempotency_key: idempotencyKey,
    block_number: null,
    gas_used: null,
    effective_gas_price: null,
    fee: null,
    error: null,
    created_at: 1,
    updated_at: 1,
  }) satisfies Omit<WalletTransactionRecord, 'nonce'>;

const CONTROL = /^\s*(begin|start transaction|commit|rollback)\b/i;

/**
 * What `fn` sends to the database, counted at the drivers (any pg Client, any PGlite): every
 * query is a round trip, and a statement unless it is BEGIN, COMMIT or ROLLBACK.
 */
async function counted(fn: () => Promise<unknown>) {
  const sql: string[] = [];
  const note = (first: unknown) => {
    const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
    if (text) sql.push(text);
  };
  const onPg = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  const onPglite = PGlite.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    note(args[0]);
    return onPg.apply(this, args);
  } as typeof pg.Client.prototype.query;
  PGlite.prototype.query = function (this: PGlite, ...args: unknown[]) {
    note(args[0]);
    return onPglite.apply(this, args);
  } as typeof PGlite.prototype.query;
  try {
    await fn();
  } finally {
    pg.Client.prototype.query = onPg as typeof pg.Client.prototype.query;
    PGlite.prototype.query = onPglite as typeof PGlite.prototype.query;
  }
  return { statements: sql.filter((t) => !CONTROL.test(t)).length, round_trips: sql.length, sql };
}

/** `send`'s statements and round trips are the budget; the SQL it sent is shown when they are not. */
async function expectBudget(
  send: () => Promise<unknown>,
  budget: { statements: number; round_trips: number },
) {
  const count = await counted(send);
  expect({ statements: count.statements, round_trips: count.round_trips }, count.sql.join('\n')).toEqual(
    budget,
  );
}

for (const target of targets) {
  describe(`the nonce sequence on ${target.name}`, () => {
    it('takes the floor first, then the next; reuses nonces given back at or above the floor; a key twice moves nothing', async () => {
      const h = await target.open();
      try {
        const { keys, wallet } = await fundedWallet(latchkeyOn(h));
        const repo = h.storage.walletTransactions;
        const take = async (id: string, floor: number, key: string | null = null) =>
          repo.insertWithNextNonce(unsent(keys.app_id, wallet.id, id, key), floor);
        const nonceOf = async (id: string, floor: number) => (await take(id, floor)).transaction.nonce;
        expect(await nonceOf('wtx_a', 3)).toBe(3);
        expect(await nonceOf('wtx_b', 0)).toBe(4);
        // Given back, taken again first (the lowest first).
        await repo.abandon(keys.app_id, 'wtx_b', ['preparing'], { error: 'refused', updated_at: 2 });
        await repo.abandon(keys.app_id, 'wtx_a', ['preparing'], { error: 'refused', updated_at: 2 });
        expect(await nonceOf('wtx_c', 0)).toBe(3);
        // Below the floor (the chain counts 6): used elsewhere, dropped; the floor is taken.
        expect(await nonceOf('wtx_d', 6)).toBe(6);
        expect(await nonceOf('wtx_e', 0)).toBe(7);
        // The same key again: the first row, and the sequence does not move.
        const first = await take('wtx_f', 0, 'once');
        expect(first).toMatchObject({ created: true, transaction: { nonce: 8, idempotency_key: 'once' } });
        const again = await take('wtx_g', 0, 'once');
        expect(again.created).toBe(false);
        expect(again.transaction.id).toBe('wtx_f');
        expect(await nonceOf('wtx_h', 0)).toBe(9);
        expect(await repo.get(keys.app_id, 'wtx_h')).toMatchObject({
          nonce: 9,
          status: 'preparing',
          value: '1',
        });
      } finally {
        await h.dispose();
      }
    });
  });

  describe(`sends on ${target.name}`, () => {
    it('a send, its sequence trusted: 3 statements, 3 round trips (the budget of docs/benchmarks.md)', async () => {
      const h = await target.open();
      try {
        const latchkey = latchkeyOn(h);
        const { keys, wallet } = await fundedWallet(latchkey);
        const send = () =>
          latchkey.walletTransactions.send(keys.app_id, wallet.id, {
            eth_transaction: {
              chain_id: String(CHAIN_ID),
              to: `0x${'33'.repeat(20)}`,
              value: '1',
              gas_limit: '21000',
              max_fee_per_gas: '5000000000',
              max_priority_fee_per_gas: '1000000000',
            },
          });
        // The first send reads the chain's count and scans for unsent rows; a clean one trusts the sequence.
        await send();
        // The nonce and the row; `signed` with the audit entry and its event; `submitted` with its event.
        await expectBudget(send, { statements: 3, round_trips: 3 });
      } finally {
        await h.dispose();
      }
    }, 60_000);

    it('a solana send: 3 statements, 3 round trips (the budget of docs/benchmarks.md)', async () => {
      const h = await target.open();
      try {
        const latchkey = latchkeyOn(h);
        const keys = await latchkey.apps.create({ name: 'Solana sends' });
        const user = await latchkey.users.create(keys.app_id, {});
        const wallet = await latchkey.wallets.create(keys.app_id, {
          user_id: user.user_id,
          wallet_type: 'solana',
        });
        solana.svm.airdrop(wallet.public_address as never, (10n ** 9n) as never);
        let lamports = 1_000_000;
        const send = () =>
          latchkey.walletTransactions.send(keys.app_id, wallet.id, {
            // A new amount each time: the same bytes under one blockhash would be the same transaction.
            sol_transfer: { to: '11111111111111111111111111111112', lamports: String(lamports++) },
          });
        // As the EVM budget: the first send warms what a process reads once (the policies' cache).
        await send();
        // The row; `signed` with the audit entry and its event; `submitted` with its event.
        await expectBudget(send, { statements: 3, round_trips: 3 });
      } finally {
        await h.dispose();
      }
    }, 60_000);

    it('50 concurrent sends from one wallet take 50 consecutive nonces, and all 50 mine', async () => {
      const h = await target.open();
      try {
        const latchkey = latchkeyOn(h);
        const { keys, wallet } = await fundedWallet(latchkey);
        const heard: { type: string; data: Record<string, unknown> }[] = [];
        latchkey.events.on('*', (e) => void heard.push(e));
        const to = Wallet.createRandom().address;
        const answers = await Promise.all(
          Array.from({ length: 50 }, () =>
            latchkey.walletTransactions.send(keys.app_id, wallet.id, {
              eth_transaction: { chain_id: String(CHAIN_ID), to, value: '1' },
            }),
          ),
        );
        expect(answers.map((a) => a.nonce).sort((a, b) => a! - b!)).toEqual([...Array(50).keys()]);
        expect(await minedCount(provider, wallet.public_address, 50)).toBe(50);
        expect(await provider.getBalance(to)).toBe(50n);
        const page = await latchkey.walletTransactions.list(keys.app_id, wallet.id, { limit: 100 });
        expect(page.transactions).toHaveLength(50);
        expect(new Set(page.transactions.map((t) => t.transaction_hash)).size).toBe(50);
        // Each send's audit entry rode its `signed` write, and its events their writes: one
        // allowed entry, one signature.made and one wallet.transaction.sent per send, stored and
        // heard in process.
        const trail = await latchkey.walletPolicies.signatures(keys.app_id, wallet.id, { limit: 100 });
        expect(trail.signatures.map((e) => e.decision)).toEqual(Array(50).fill('allowed'));
        const stored = await latchkey.events.list(keys.app_id, { limit: 200 });
        for (const events of [stored.events, heard]) {
          const sent = events.filter((e) => e.type === 'wallet.transaction.sent');
          expect(sent.map((e) => e.data.nonce).sort((a, b) => Number(a) - Number(b))).toEqual([
            ...Array(50).keys(),
          ]);
          expect(new Set(sent.map((e) => e.data.transaction_hash))).toEqual(
            new Set(page.transactions.map((t) => t.transaction_hash)),
          );
          const made = events.filter((e) => e.type === 'signature.made');
          expect(new Set(made.map((e) => e.data.signature_id))).toEqual(
            new Set(trail.signatures.map((e) => e.id)),
          );
        }
      } finally {
        await h.dispose();
      }
    }, 120_000);

    it('an idempotency key sent 10 times at once sends once', async () => {
      const h = await target.open();
      try {
        const latchkey = latchkeyOn(h);
        const { keys, wallet } = await fundedWallet(latchkey);
        const to = Wallet.createRandom().address;
        const answers = await Promise.all(
          Array.from({ length: 10 }, () =>
            latchkey.walletTransactions.send(keys.app_id, wallet.id, {
              eth_transaction: { chain_id: String(CHAIN_ID), to, value: '1' },
              idempotency_key: 'pay-once',
            }),
          ),
        );
        expect(new Set(answers.map((a) => a.transaction_id)).size).toBe(1);
        expect(await provider.getBalance(to)).toBe(1n);
        // Signed once: one audit entry.
        const trail = await latchkey.walletPolicies.signatures(keys.app_id, wallet.id, { limit: 100 });
        expect(trail.signatures).toHaveLength(1);
      } finally {
        await h.dispose();
      }
    }, 60_000);
  });
}

const runFixture = (env: Record<string, string>) => {
  const child = spawn(
    process.execPath,
    [
      '--conditions=source',
      '--import',
      'tsx',
      fileURLToPath(new URL('./fixtures/send-many.ts', import.meta.url)),
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  return new Promise<{ code: number | null; out: string }>((r) =>
    child.on('exit', (code) => r({ code, out: out.trim() })),
  );
};

describe.skipIf(!DATABASE_URL)('two server processes on one Postgres', () => {
  it('50 concurrent sends from one wallet between them: 50 distinct consecutive nonces, all mined', async () => {
    const h = await postgresTarget.open();
    try {
      const { keys, wallet } = await fundedWallet(latchkeyOn(h));
      const to = Wallet.createRandom().address;
      const env = {
        SCHEMA: h.schema,
        SECRET,
        SECRET_KEY: keys.secret_key,
        RPC_URL: node.url,
        CHAIN_ID: String(CHAIN_ID),
        WALLET_ID: wallet.id,
        TO: to,
        COUNT: '25',
      };
      const runs = await Promise.all([runFixture(env), runFixture(env)]);
      expect(runs.map((r) => r.code)).toEqual([0, 0]);
      const nonces = runs.flatMap((r) => JSON.parse(r.out) as unknown[]);
      expect([...nonces].sort((a, b) => Number(a) - Number(b))).toEqual([...Array(50).keys()]);
      // Each process got some: they really interleaved on the one sequence.
      expect(runs.every((r) => (JSON.parse(r.out) as unknown[]).length === 25)).toBe(true);
      expect(await minedCount(provider, wallet.public_address, 50)).toBe(50);
      expect(await provider.getBalance(to)).toBe(50n);
    } finally {
      await h.dispose();
    }
  }, 180_000);
});
