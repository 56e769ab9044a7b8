import { randomBytes } from 'node:crypto';
import { createLatchkey } from '@latchkey/core';
import { Wallet } from 'ethers';
import { startAnvil } from './anvil.js';
import { inProcessRate, withExampleStorage } from './in-process.js';

/**
 * EVM sends (issue 35) in process, beside their ceiling, against a real anvil (Foundry's
 * development node, the one the send tests use: anvil.ts says where it is found). The
 * ceiling signs the same transfer with a key in memory (ethers) and broadcasts it with a nonce
 * counted in memory: one node call. Latchkey's send takes the nonce from storage, reads the
 * node's pending count, runs the policy gate (audit entry), signs and broadcasts; gas and fees
 * are given, so it estimates nothing. `BENCH_SENDS` per row (default 500), `BENCH_CONNECTIONS`
 * in flight (default 10), on the example server's storage (`DATABASE_URL`, else PGlite).
 */
const sends = Number(process.env.BENCH_SENDS ?? 500);
const concurrency = Number(process.env.BENCH_CONNECTIONS ?? 10);
const CHAIN_ID = 31337;
const FEES = { gas_limit: '21000', max_fee_per_gas: '5000000000', max_priority_fee_per_gas: '1000000000' };

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

async function row(name: string, op: (i: number) => Promise<unknown>) {
  const r = await inProcessRate(name, { amount: sends, concurrency }, op);
  return { row: name, 'sends/s': r.calls_per_second, 'CPU µs/send': r.cpu_us_per_call, errors: r.errors };
}

const anvil = await startAnvil(CHAIN_ID);
try {
  await withExampleStorage(async (storage, description) => {
    const latchkey = createLatchkey({
      storage,
      secret: randomBytes(32).toString('base64url'),
      chains: { ethereum: { mainnet: { url: anvil.url, chainId: CHAIN_ID } }, cacheSeconds: 0 } as never,
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
    const send = await row('walletTransactions.send ethereum (gas and fees given)', () =>
      latchkey.walletTransactions.send(app_id, wallet.id, {
        eth_transaction: { chain_id: String(CHAIN_ID), to, value: '1', ...FEES },
      }),
    );
    console.log(`\nEVM sends in process on anvil (${description}), ${concurrency} in flight, ${sends} each`);
    console.table(Object.fromEntries([ceiling, send].map(({ row: name, ...r }) => [name, r])));
    console.log(`send ÷ ceiling (sends/s): ${(send['sends/s'] / ceiling['sends/s']).toFixed(2)}`);
    await latchkey.close();
  });
} finally {
  anvil.child.kill();
}
