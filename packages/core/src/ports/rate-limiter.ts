export interface RateLimitDecision {
  allowed: boolean;
  /** Hits left in the current window after this one. */
  remaining: number;
  /** Seconds until the window frees a slot; 0 when allowed. */
  retryAfter: number;
}

/**
 * Counts hits per key in fixed windows. `hit` is atomic: of any number of concurrent callers at
 * most `limit` are allowed per window, across every process sharing the limiter's backend.
 */
export interface RateLimiter {
  hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
}
