import type { Storage } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import pg from 'pg';
import { signingPrimitiveRates } from './ed25519-rate.js';
import { inProcessRate, withExampleStorage } from './in-process.js';
import { WALLET_TYPES, walletFixture } from './wallet-fixture.js';

/**
 * The in-process wallet rows (issue 18) measured in what a loaded machine does not change much:
 * SQL statements sent per call, and this process's CPU time per call, besides calls per second.
 * `BENCH_WALLET_CALLS` calls per row (default 2000; creates: `BENCH_WALLET_CREATES`, default 300),
 * `BENCH_CONNECTIONS` in flight (default 10), `BENCH_ONLY=<regex>` to pick rows; on the storage
 * the example server would use (`DATABASE_URL`) and on memory storage (`BENCH_STORAGES`: `sql`,
 * `memory` or both), with the signing primitives after (`BENCH_PRIMITIVES=0`: not).
 */
const calls = Number(process.env.BENCH_WALLET_CALLS ?? 2000);
const creates = Number(process.env.BENCH_WALLET_CREATES ?? 300);
const concurrency = Number(process.env.BENCH_CONNECTIONS ?? 10);
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : undefined;

let statements = 0;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statements++;
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

interface Row {
  row: string;
  'calls/s': number;
  'CPU µs/call': number;
  'statements/call': number;
  errors: number;
}

async function row(name: string, amount: number, op: (i: number) => Promise<unknown>): Promise<Row> {
  const statementsBefore = statements;
  const r = await inProcessRate(name, { amount, concurrency }, op);
  return {
    row: name,
    'calls/s': r.calls_per_second,
    'CPU µs/call': r.cpu_us_per_call,
    'statements/call': Number(((statements - statementsBefore) / amount).toFixed(2)),
    errors: r.errors,
  };
}

async function rows(storage: Storage, label: string): Promise<Row[]> {
  const { latchkey, app_id, users, wallets, transaction, message } = await walletFixture(
    storage,
    'bench wallets cpu',
    creates,
  );
  try {
    const out: Row[] = [];
    const pick = (name: string) => !only || only.test(name);
    const create = `wallets.create ethereum, new user${label}`;
    if (pick(create))
      out.push(
        await row(create, creates, (i) =>
          latchkey.wallets.create(app_id, { user_id: users[i]!, wallet_type: 'ethereum' }),
        ),
      );
    for (const wallet_type of WALLET_TYPES) {
      const name = `wallets.signMessage ${wallet_type}${label}`;
      if (pick(name))
        out.push(
          await row(name, calls, () =>
            latchkey.wallets.signMessage(app_id, wallets[wallet_type].id, message),
          ),
        );
    }
    const sign = `wallets.signTransaction solana${label}`;
    if (pick(sign))
      out.push(
        await row(sign, calls, () =>
          latchkey.wallets.signTransaction(app_id, wallets.solana.id, {
            sol_transaction: { transaction, encoding: 'base64' },
          }),
        ),
      );
    return out;
  } finally {
    await latchkey.close();
  }
}

await withExampleStorage(async (storage, description) => {
  // BENCH_STORAGES=memory or =sql: one of the two only (for a profile of one).
  const storages = process.env.BENCH_STORAGES ?? 'sql,memory';
  const results = [
    ...(storages.includes('sql') ? await rows(storage, '') : []),
    ...(storages.includes('memory') ? await rows(memoryStorage(), ', memory') : []),
  ];
  const primitives = process.env.BENCH_PRIMITIVES === '0' ? [] : await signingPrimitiveRates(3);
  console.log(`\nWallet rows in process (${description}, and memory), ${concurrency} in flight`);
  console.table(Object.fromEntries(results.map(({ row: name, ...r }) => [name, r])));
  console.table(Object.fromEntries(primitives.map((p) => [p.name, { 'calls/s': p.requests_per_second }])));
});
