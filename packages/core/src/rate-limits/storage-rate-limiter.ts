import type { Clock } from '../ports/clock.js';
import type { RateLimitDecision, RateLimiter } from '../ports/rate-limiter.js';
import type { RateLimitRepo } from './repo.js';

/**
 * The default RateLimiter: fixed windows counted in Storage, so every process sharing the
 * database shares the limits. Ended windows are pruned now and then, not on every hit.
 */
export function storageRateLimiter(repo: RateLimitRepo, clock: Clock): RateLimiter {
  let hitsSincePrune = 0;
  const windowOf = (windowSeconds: number) => {
    const now = Math.floor(clock.now() / 1000);
    return { now, windowStart: now - (now % windowSeconds) };
  };
  const decide = (
    limit: number,
    windowSeconds: number,
    { now, windowStart }: { now: number; windowStart: number },
    { counted, count }: { counted: boolean; count: number },
  ): RateLimitDecision => ({
    allowed: counted,
    remaining: Math.max(0, limit - count),
    retryAfter: counted ? 0 : windowStart + windowSeconds - now,
  });
  const maybePrune = (hits: number) => {
    hitsSincePrune += hits;
    if (hitsSincePrune < 1000) return;
    hitsSincePrune = 0;
    // A day covers the longest window a rule may have.
    repo.prune(Math.floor(clock.now() / 1000) - 86_400).catch(() => {});
  };
  const limiter: RateLimiter = {
    async hit(key, limit, windowSeconds) {
      const at = windowOf(windowSeconds);
      const result = await repo.hit(`${key}:${windowSeconds}`, at.windowStart, limit);
      maybePrune(1);
      return decide(limit, windowSeconds, at, result);
    },
  };
  const hitAll = repo.hitAll?.bind(repo);
  if (hitAll) {
    // The windows of one request counted in one step: one statement instead of one per window.
    limiter.hitAll = async (hits) => {
      const at = hits.map((h) => windowOf(h.windowSeconds));
      const results = await hitAll(
        hits.map((h, i) => ({
          key: `${h.key}:${h.windowSeconds}`,
          windowStart: at[i]!.windowStart,
          limit: h.limit,
        })),
      );
      maybePrune(hits.length);
      return hits.map((h, i) => decide(h.limit, h.windowSeconds, at[i]!, results[i]!));
    };
  }
  return limiter;
}
