import { randomBytes } from 'node:crypto';
import { cp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type AppKeys, createLatchkey, type Storage } from '@latchkey/core';
import { pgliteStorage, postgresStorage } from '@latchkey/kysely-postgres';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { call, expectError } from './api.js';
import { DATABASE_URL, type StorageTarget, storageTarget } from './database.js';
import {
  newDataDir,
  removeDataDirs,
  type SpawnedServer,
  spawnServer,
  stopAllServers,
} from './spawn-server.js';

/**
 * A rate limit of N per minute holds across server processes: the (N+1)-th call gets 429 on
 * whichever process it reaches. Once with Redis as the only thing the processes share (each has
 * its own PGlite copy of the same App), once with two processes on one Postgres and no Redis.
 */
const N = 5;
const ROUTE = 'GET /v1/auth/users/{user_id}';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000 });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
const haveRedis = await redisReachable();
if (!haveRedis) console.warn(`rate-limit test: no Redis at ${REDIS_URL}; skipping the Redis case.`);

const secrets = () => ({
  LATCHKEY_SECRET: randomBytes(32).toString('base64url'),
  LATCHKEY_VAULT_KEY: randomBytes(32).toString('base64url'),
});

/** Creates the App the servers will take as their demo App, with the route limited to N per minute. */
async function prepareApp(storage: Storage, secret: string, dataDir: string): Promise<AppKeys> {
  try {
    const { app_id, secret_key, public_token } = await createLatchkey({ storage, secret }).apps.create({
      name: 'rate-limited',
      settings: { rate_limits: { routes: { [ROUTE]: { limit: N, window_seconds: 60, by: 'app' } } } },
    });
    const keys = { app_id, secret_key, public_token };
    await writeFile(path.join(dataDir, 'demo-app.json'), JSON.stringify(keys));
    return keys;
  } finally {
    await storage.close();
  }
}

/** The storage limiter counts in windows aligned to the minute: start well inside one. */
async function awayFromMinuteEdge() {
  const second = new Date().getSeconds();
  if (second > 40) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
}

/** N calls spread over both servers pass; every later call, on either, gets 429 with Retry-After. */
async function expectSharedLimit(servers: [SpawnedServer, SpawnedServer], keys: AppKeys) {
  const get = (s: SpawnedServer) =>
    call(s.url, 'GET', `/v1/auth/users/user_${keys.app_id}`, { key: keys.secret_key });
  const first = [];
  for (let i = 0; i < N; i++) first.push((await get(servers[i % 2]!)).status);
  expect(first).toEqual(Array(N).fill(404));
  for (const s of [servers[N % 2]!, servers[(N + 1) % 2]!, servers[0]]) {
    const res = await get(s);
    expectError(res, 429, 'rate_limited');
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  }
  // Another route of the same App is not held back by this rule.
  const other = await call(servers[1].url, 'POST', '/v1/auth/users', {
    key: keys.secret_key,
    body: { email: `rl-${randomBytes(4).toString('hex')}@example.com` },
  });
  expect(other.status).toBe(200);
}

describe('a per-route rate limit across two server processes', () => {
  let target: StorageTarget | undefined;
  afterEach(async () => {
    await stopAllServers();
    await target?.dispose();
    target = undefined;
    await removeDataDirs();
  });

  it.skipIf(!haveRedis)(
    'holds when they share only Redis (LATCHKEY_REDIS_URL)',
    async () => {
      const env = secrets();
      const first = await newDataDir();
      const keys = await prepareApp(
        await pgliteStorage(path.join(first, 'pglite'), { migrate: true }),
        env.LATCHKEY_SECRET,
        first,
      );
      // The second process gets its own copy of the database: only Redis can carry the count.
      const second = await newDataDir();
      await cp(first, second, { recursive: true });
      const serverEnv = { ...env, LATCHKEY_REDIS_URL: REDIS_URL };
      const [a, b] = await Promise.all([spawnServer(first, serverEnv), spawnServer(second, serverEnv)]);
      expect(a.keys).toEqual(keys);
      expect(b.keys).toEqual(keys);
      expect(a.banner).toContain('rate limits in Redis');
      await expectSharedLimit([a, b], keys);
      expect(await a.stop()).toEqual({ code: 0, signal: null });
      expect(await b.stop()).toEqual({ code: 0, signal: null });
    },
    120_000,
  );

  it.skipIf(!DATABASE_URL)(
    'holds when they share Postgres (no Redis: the storage limiter)',
    async () => {
      target = storageTarget();
      const env = secrets();
      const dataDir = await newDataDir();
      const keys = await prepareApp(
        await postgresStorage(DATABASE_URL!, { migrate: true, schema: target.schema! }),
        env.LATCHKEY_SECRET,
        dataDir,
      );
      const serverEnv = { ...target.env, ...env, LATCHKEY_REDIS_URL: undefined };
      const a = await spawnServer(dataDir, serverEnv);
      const b = await spawnServer(dataDir, serverEnv);
      expect(b.banner).not.toContain('Redis');
      await awayFromMinuteEdge();
      await expectSharedLimit([a, b], keys);
      expect(await a.stop()).toEqual({ code: 0, signal: null });
      expect(await b.stop()).toEqual({ code: 0, signal: null });
    },
    120_000,
  );
});
