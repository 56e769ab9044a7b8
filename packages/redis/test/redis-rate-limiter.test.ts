import { randomBytes } from 'node:crypto';
import { createLatchkey, isLatchkeyError } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { redisRateLimiter } from '@latchkey/redis';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { REDIS_URL, reachable } from './redis-server.js';

const canRun = await reachable();
if (!canRun)
  console.warn(
    `@latchkey/redis: no Redis at ${REDIS_URL}; skipping its tests (start redis-server to run them).`,
  );

const clients: Redis[] = [];
const client = () => {
  const c = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  clients.push(c);
  return c;
};
// Each run counts under its own prefix and removes it afterwards.
const prefix = `latchkey-test:${randomBytes(6).toString('hex')}:`;

afterAll(async () => {
  if (!canRun) return;
  const c = client();
  const keys = await c.keys(`${prefix}*`);
  if (keys.length) await c.del(...keys);
  await Promise.all(clients.map((c) => c.quit()));
});

describe.skipIf(!canRun)('redisRateLimiter', () => {
  it('allows `limit` hits per window, then refuses with the seconds left', async () => {
    const limiter = redisRateLimiter(client(), { prefix });
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.hit('fixed', 3, 60));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions.slice(0, 3).every((d) => d.retryAfter === 0)).toBe(true);
    expect(decisions[3]!.retryAfter).toBeGreaterThan(55);
    expect(decisions[3]!.retryAfter).toBeLessThanOrEqual(60);
    // Keys, and window lengths, count apart.
    expect((await limiter.hit('other', 3, 60)).allowed).toBe(true);
    expect((await limiter.hit('fixed', 3, 30)).allowed).toBe(true);
  });

  it('holds under concurrent hits from two clients (two nodes): exactly `limit` get through', async () => {
    const a = redisRateLimiter(client(), { prefix });
    const b = redisRateLimiter(client(), { prefix });
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).hit('race', 10, 60)),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
  });

  it('opens a new window once the old one expires', async () => {
    const limiter = redisRateLimiter(client(), { prefix });
    expect((await limiter.hit('short', 1, 1)).allowed).toBe(true);
    expect((await limiter.hit('short', 1, 1)).allowed).toBe(false);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await limiter.hit('short', 1, 1)).allowed).toBe(true);
  });

  it('reloads its script when Redis has forgotten it', async () => {
    const c = client();
    const limiter = redisRateLimiter(c, { prefix });
    expect((await limiter.hit('flush', 5, 60)).allowed).toBe(true);
    await c.script('FLUSH');
    expect((await limiter.hit('flush', 5, 60)).remaining).toBe(3);
  });

  it('answers 503 storage_unavailable when Redis cannot be reached', async () => {
    const down = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    down.on('error', () => {});
    const err = await redisRateLimiter(down, { prefix })
      .hit('x', 1, 60)
      .catch((e: unknown) => e);
    expect(isLatchkeyError(err) && err.errorType).toBe('storage_unavailable');
    down.disconnect();
  });

  it('serves as the rateLimiter of createLatchkey: an App rule answers 429 past its limit', async () => {
    const latchkey = createLatchkey({
      storage: memoryStorage(),
      secret: 'redis-test-secret-that-is-long-enough-0123',
      rateLimiter: redisRateLimiter(client(), { prefix }),
    });
    const { app_id, secret_key } = await latchkey.apps.create({
      name: 'redis',
      settings: {
        rate_limits: {
          routes: { 'GET /v1/auth/users/{user_id}': { limit: 2, window_seconds: 60, by: 'app' } },
        },
      },
    });
    const get = () =>
      latchkey.fetch(
        new Request(`http://x/v1/auth/users/user_${app_id}`, {
          headers: { authorization: `Bearer ${secret_key}` },
        }),
      );
    const statuses = [(await get()).status, (await get()).status];
    const third = await get();
    expect([...statuses, third.status]).toEqual([404, 404, 429]);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
