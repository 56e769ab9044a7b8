import type { Clock } from '../ports/clock.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { RateLimitRepo } from './repo.js';

/**
 * The default RateLimiter: fixed windows counted in Storage, so every process sharing the
 * database shares the limits. Ended windows are pruned now and then, not on every hit.
 */
export function storageRateLimiter(repo: RateLimitRepo, clock: Clock): RateLimiter {
  let hitsSincePrune = 0;
  return {
    async hit(key, limit, windowSeconds) {
      const now = Math.floor(clock.now() / 1000);
      const windowStart = now - (now % windowSeconds);
      const { counted, count } = await repo.hit(`${key}:${windowSeconds}`, windowStart, limit);
      if (++hitsSincePrune >= 1000) {
        hitsSincePrune = 0;
        // A day covers the longest window a rule may have.
        repo.prune(now - 86_400).catch(() => {});
      }
      return {
        allowed: counted,
        remaining: Math.max(0, limit - count),
        retryAfter: counted ? 0 : windowStart + windowSeconds - now,
      };
    },
  };
}
