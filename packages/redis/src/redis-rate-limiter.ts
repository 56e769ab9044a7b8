import { LatchkeyError, type RateLimiter } from '@latchkey/core';
import type { Cluster, Redis } from 'ioredis';

export interface RedisRateLimiterOptions {
  /** Put before every key, to share a Redis with other users of it. Default `latchkey:rl:`. */
  prefix?: string;
}

/**
 * One fixed window per key: the first hit creates the counter with the window as its time to
 * live, so every node shares the window Redis keeps (no clock of ours is involved). One EVAL, so
 * counting and expiry cannot be split by a crash or a concurrent caller.
 */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

/**
 * A RateLimiter shared by every node that uses the same Redis. `redis` is an ioredis client
 * (or Cluster) the host owns and closes. Redis errors surface as 503 `storage_unavailable`.
 */
export function redisRateLimiter(redis: Redis | Cluster, options: RedisRateLimiterOptions = {}): RateLimiter {
  const prefix = options.prefix ?? 'latchkey:rl:';
  let sha: string | undefined;

  const run = async (key: string, windowSeconds: number): Promise<[number, number]> => {
    sha ??= (await redis.script('LOAD', HIT_SCRIPT)) as string;
    try {
      return (await redis.evalsha(sha, 1, key, windowSeconds)) as [number, number];
    } catch (err) {
      // A Redis restarted without persistence forgets loaded scripts.
      if (!String((err as Error)?.message).startsWith('NOSCRIPT')) throw err;
      return (await redis.eval(HIT_SCRIPT, 1, key, windowSeconds)) as [number, number];
    }
  };

  return {
    async hit(key, limit, windowSeconds) {
      let count: number;
      let ttl: number;
      try {
        [count, ttl] = await run(`${prefix}${key}:${windowSeconds}`, windowSeconds);
      } catch (cause) {
        throw new LatchkeyError(
          'storage_unavailable',
          'The rate limiter’s Redis is unavailable; retry shortly.',
          {
            cause,
          },
        );
      }
      const allowed = count <= limit;
      return { allowed, remaining: Math.max(0, limit - count), retryAfter: allowed ? 0 : Math.max(1, ttl) };
    },
  };
}
