import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Storage } from '@latchkey/core';
import { configFromEnv } from '@latchkey/example-express-server/config';
import { openStorage } from '@latchkey/example-express-server/storage';
import { memoryStorage } from '@latchkey/memory';
import type { Measurement, Target } from './measure.js';
import { unsignedTransfer, WALLET_TYPES, walletFixture } from './wallet-fixture.js';

type Call = (method: string, route: string, body?: unknown) => Promise<Record<string, string>>;

/**
 * wallets/create for each type (each request a user without that wallet yet, so every one
 * derives and stores a wallet), wallets/list, and sign_transaction of a Solana transfer.
 */
export async function walletTargets(
  url: string,
  secretKey: string,
  call: Call,
  creates: number,
): Promise<Target[]> {
  const users: string[] = [];
  for (let i = 0; i < creates; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, creates - i) }, () => call('POST', '/v1/auth/users', {})),
    );
    users.push(...batch.map((b) => b.user_id!));
  }
  // Each user's seed is made by their first wallet; make it now so every type measures the same work.
  for (let i = 0; i < users.length; i += 50) {
    await Promise.all(
      users
        .slice(i, i + 50)
        .map((user_id) => call('POST', '/v1/wallets/create', { user_id, wallet_type: 'ethereum' })),
    );
  }
  // Users with no wallet yet: their first create also makes (and seals) their seed.
  const newUsers: string[] = [];
  for (let i = 0; i < creates; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, creates - i) }, () => call('POST', '/v1/auth/users', {})),
    );
    newUsers.push(...batch.map((b) => b.user_id!));
  }
  const messageSigners = Object.fromEntries(
    await Promise.all(
      WALLET_TYPES.map(async (wallet_type) => {
        const user = await call('POST', '/v1/auth/users', {});
        const w = await call('POST', '/v1/wallets/create', { user_id: user.user_id, wallet_type });
        return [wallet_type, w.id!] as const;
      }),
    ),
  );
  const signer = (await call('POST', '/v1/wallets/create', { user_id: users[0], wallet_type: 'solana' })) as {
    id: string;
    public_address: string;
  };
  const transaction = unsignedTransfer(signer.public_address);

  const headers = { authorization: `Bearer ${secretKey}` };
  const perType = WALLET_TYPES.filter((t) => t !== 'ethereum' && t !== 'solana');
  return [
    ...[...perType, 'solana' as const].map((wallet_type): Target => {
      let next = 1; // users[0] already has its solana wallet
      return {
        name: `POST wallets/create ${wallet_type} (${creates - 1} new)`,
        url: `${url}/v1/wallets/create`,
        method: 'POST',
        headers,
        nextBody: () => ({ user_id: users[next++ % users.length], wallet_type }),
        amount: creates - 1,
      };
    }),
    (() => {
      let next = 0;
      return {
        name: `POST wallets/create ethereum (${creates} new users: seed made too)`,
        url: `${url}/v1/wallets/create`,
        method: 'POST' as const,
        headers,
        nextBody: () => ({ user_id: newUsers[next++ % newUsers.length], wallet_type: 'ethereum' }),
        amount: creates,
      };
    })(),
    ...WALLET_TYPES.map(
      (wallet_type): Target => ({
        name: `POST wallets/{id}/sign_message ${wallet_type}`,
        url: `${url}/v1/wallets/${messageSigners[wallet_type]}/sign_message`,
        method: 'POST',
        headers,
        body: { message: 'Sign in to example.com\nNonce: 8f2a61c0', encoding: 'utf8' },
      }),
    ),
    {
      name: 'POST wallets/create ethereum (existing)',
      url: `${url}/v1/wallets/create`,
      method: 'POST',
      headers,
      body: { user_id: users[0], wallet_type: 'ethereum' },
    },
    { name: 'GET wallets/list (100)', url: `${url}/v1/wallets/list?limit=100`, headers },
    {
      name: 'POST wallets/{id}/sign_transaction',
      url: `${url}/v1/wallets/${signer.id}/sign_transaction`,
      method: 'POST',
      headers,
      body: { sol_transaction: { transaction, encoding: 'base64' } },
    },
  ];
}

/** Calls of `op` per second in this process with `concurrency` in flight, for `seconds` or `amount` calls. */
async function inProcessRate(
  name: string,
  { seconds, concurrency, amount }: { seconds: number; concurrency: number; amount?: number },
  op: (i: number) => Promise<unknown>,
): Promise<Measurement> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  const worker = async () => {
    while (amount === undefined ? performance.now() < end : next < amount) {
      const i = next++;
      const start = performance.now();
      try {
        await op(i);
      } catch (err) {
        if (errors++ === 0) console.error(`${name}:`, err);
      }
      latencies.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Number((latencies[Math.floor(q * (latencies.length - 1))] ?? 0).toFixed(2));
  return {
    name,
    requests_per_second: Math.round(latencies.length / elapsed),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
    errors,
    non_2xx: 0,
    total: latencies.length,
  };
}

/**
 * The wallet rows again with no HTTP: `latchkey.wallets.create` / `signMessage` /
 * `signTransaction` called in this process on the storage the example server uses, with
 * `concurrency` calls in flight. The gap between these and the HTTP rows is the HTTP stack; the
 * gap between these and the primitives is Latchkey's own work (vault, policies, audit trail).
 */
export async function walletServiceRates(
  seconds: number,
  concurrency: number,
  creates: number,
): Promise<Measurement[]> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'latchkey-bench-wallets-'));
  try {
    const { storage } = await openStorage({ ...configFromEnv(), dataDir });
    return [
      ...(await serviceRates(storage, '', { seconds, concurrency, creates })),
      // The same on memory storage: what is left is Latchkey's own work, no database.
      ...(await serviceRates(memoryStorage(), ', memory storage', { seconds, concurrency, creates })),
    ];
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function serviceRates(
  storage: Storage,
  label: string,
  { seconds, concurrency, creates }: { seconds: number; concurrency: number; creates: number },
): Promise<Measurement[]> {
  const { latchkey, app_id, users, wallets, transaction, message } = await walletFixture(
    storage,
    'bench wallets in process',
    creates,
  );
  try {
    const rows: Measurement[] = [
      await inProcessRate(
        `wallets.create ethereum, ${creates} new users (in process${label})`,
        { seconds, concurrency, amount: creates },
        (i) => latchkey.wallets.create(app_id, { user_id: users[i]!, wallet_type: 'ethereum' }),
      ),
    ];
    for (const wallet_type of WALLET_TYPES) {
      rows.push(
        await inProcessRate(
          `wallets.signMessage ${wallet_type} (in process${label})`,
          { seconds, concurrency },
          () => latchkey.wallets.signMessage(app_id, wallets[wallet_type].id, message),
        ),
      );
    }
    rows.push(
      await inProcessRate(
        `wallets.signTransaction solana (in process${label})`,
        { seconds, concurrency },
        () =>
          latchkey.wallets.signTransaction(app_id, wallets.solana.id, {
            sol_transaction: { transaction, encoding: 'base64' },
          }),
      ),
    );
    return rows;
  } finally {
    await latchkey.close();
  }
}
