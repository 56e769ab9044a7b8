import { randomBytes } from 'node:crypto';
import { createLatchkey } from '@latchkey/core';
import { Wallet } from 'ethers';
import pg from 'pg';
import { startAnvil } from './anvil.js';
import { inProcessRate, withExampleStorage } from './in-process.js';

/**
 * EVM sends (issue 35) in process, beside their ceiling, against a real anvil (Foundry's
 * development node, the one the send tests use: anvil.ts says where it is found). The
 * ceiling signs the same transfer with a key in memory (ethers) and broadcasts it with a nonce
 * counted in memory: one node call. Latchkey's send takes the nonce from storage (reading the
 * node's pending count when it does not trust the sequence), runs the policy gate (audit entry),
 * signs, stores the signed bytes and broadcasts; gas and fees
 * are given, so it estimates nothing. `BENCH_SENDS` per row (default 500), `BENCH_CONNECTIONS`
 * in flight (default 10), on the example server's storage (`DATABASE_URL`, else PGlite). Each
 * row also counts, per send, the SQL round trips and statements (BEGIN/COMMIT are round trips,
 * not statements) a pg Client sent (Postgres only) and the JSON-RPC calls made to the node;
 * `BENCH_SHOW_SQL=1` prints the SQL and node calls of one more send after the rows, each with
 * the time it was sent (ms since the send began).
 */
const sends = Number(process.env.BENCH_SENDS ?? 500);
const concurrency = Number(process.env.BENCH_CONNECTIONS ?? 10);
const CHAIN_ID = 31337;
const FEES = { gas_limit: '21000', max_fee_per_gas: '5000000000', max_priority_fee_per_gas: '1000000000' };

const CONTROL = /^\s*(begin|start transaction|commit|rollback)\b/i;
const counts = { roundTrips: 0, statements: 0, rpc: 0 };
let trace: string[] | undefined;
let traceStart = 0;
const at = () => `+${(performance.now() - traceStart).toFixed(1)} ms`;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0];
  const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
  if (text !== undefined) {
    counts.roundTrips++;
    if (!CONTROL.test(text)) counts.statements++;
    trace?.push(`${at()} sql: ${text.replace(/\s+/g, ' ').slice(0, 160)}`);
  }
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

/** fetch, counting JSON-RPC calls (the ceiling's and Latchkey's node calls both go through it). */
const countingFetch: typeof fetch = (input, init) => {
  counts.rpc++;
  if (trace && typeof init?.body === 'string')
    trace.push(`${at()} rpc: ${/"method":"(\w+)"/.exec(init.body)?.[1]}`);
  return fetch(input, init);
};

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await countingFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

async function row(name: string, op: (i: number) => Promise<unknown>) {
  const before = { ...counts };
  const r = await inProcessRate(name, { amount: sends, concurrency }, op);
  const per = (n: number) => Number((n / sends).toFixed(2));
  return {
    row: name,
    'sends/s': r.calls_per_second,
    'CPU µs/send': r.cpu_us_per_call,
    'SQL round trips/send': per(counts.roundTrips - before.roundTrips),
    'statements/send': per(counts.statements - before.statements),
    'RPC calls/send': per(counts.rpc - before.rpc),
    errors: r.errors,
  };
}

const anvil = await startAnvil(CHAIN_ID);
try {
  await withExampleStorage(async (storage, description) => {
    const latchkey = createLatchkey({
      storage,
      secret: randomBytes(32).toString('base64url'),
      chains: {
        ethereum: { mainnet: { url: anvil.url, chainId: CHAIN_ID } },
        cacheSeconds: 0,
        fetch: countingFetch,
      } as never,
    });
    const { app_id } = await latchkey.apps.create({ name: 'bench sends' });
    const fund = async (address: string) =>
      rpc(anvil.url, 'anvil_setBalance', [address, `0x${(10n ** 24n).toString(16)}`]);
    const to = Wallet.createRandom().address;

    const inMemory = Wallet.createRandom();
    await fund(inMemory.address);
    const ceiling = await row('ceiling: sign in memory (ethers) + eth_sendRawTransaction', async (nonce) => {
      const raw = await inMemory.signTransaction({
        type: 2,
        chainId: CHAIN_ID,
        nonce,
        to,
        value: 1n,
        gasLimit: 21000n,
        maxFeePerGas: BigInt(FEES.max_fee_per_gas),
        maxPriorityFeePerGas: BigInt(FEES.max_priority_fee_per_gas),
      });
      return rpc(anvil.url, 'eth_sendRawTransaction', [raw]);
    });

    const { user_id } = await latchkey.users.create(app_id, {});
    const wallet = await latchkey.wallets.create(app_id, { user_id, wallet_type: 'ethereum' });
    await fund(wallet.public_address);
    const sendOne = () =>
      latchkey.walletTransactions.send(app_id, wallet.id, {
        eth_transaction: { chain_id: String(CHAIN_ID), to, value: '1', ...FEES },
      });
    const send = await row('walletTransactions.send ethereum (gas and fees given)', sendOne);
    console.log(`\nEVM sends in process on anvil (${description}), ${concurrency} in flight, ${sends} each`);
    console.table(Object.fromEntries([ceiling, send].map(({ row: name, ...r }) => [name, r])));
    console.log(
      `send ÷ ceiling: sends/s ${(send['sends/s'] / ceiling['sends/s']).toFixed(2)}, CPU µs/send ${(send['CPU µs/send'] / ceiling['CPU µs/send']).toFixed(2)}`,
    );
    if (process.env.BENCH_SHOW_SQL) {
      trace = [];
      traceStart = performance.now();
      await sendOne();
      trace.push(`${at()} answered`);
      console.log(`\none send, in order:\n${trace.join('\n')}`);
      trace = undefined;
    }
    await latchkey.close();
  });
} finally {
  anvil.child.kill();
}
