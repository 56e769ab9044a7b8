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
  /**
   * Optional: several hits of one request (distinct keys) in one step, one decision each in the
   * same order. Each key is counted as `hit` would count it, independently of the others, so a
   * limiter without it is served by calling `hit` for each.
   */
  hitAll?(hits: readonly RateLimitHit[]): Promise<RateLimitDecision[]>;
}

export interface RateLimitHit {
  key: string;
  limit: number;
  windowSeconds: number;
}
