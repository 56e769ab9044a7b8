import { LatchkeyError, type RateLimiter } from '@latchkey/core';
import type { RequestHandler } from 'express';

/** Per client IP, over every page and file the example server serves outside `/v1`. */
export const DEMO_RATE_LIMIT = { limit: 50, windowSeconds: 10 };

/**
 * The demo's own routes get a per-IP limit of their own, counted by the same RateLimiter as
 * Latchkey's routes (so shared by every node on one database or Redis). `/v1` is left to
 * Latchkey, which limits its routes itself. A page load with its modules is some 25 requests.
 */
export function demoRateLimit(
  limiter: RateLimiter,
  { limit, windowSeconds } = DEMO_RATE_LIMIT,
): RequestHandler {
  return (req, _res, next) => {
    if (req.path === '/v1' || req.path.startsWith('/v1/')) return next();
    limiter
      .hit(`demo:ip:${req.ip ?? 'unknown'}`, limit, windowSeconds)
      .then((decision) =>
        next(
          decision.allowed
            ? undefined
            : new LatchkeyError('rate_limited', undefined, { retryAfter: decision.retryAfter }),
        ),
      )
      .catch(next);
  };
}
