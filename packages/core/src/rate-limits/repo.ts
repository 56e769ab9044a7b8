export interface RateLimitRepo {
  /**
   * Atomically counts one hit for `key` in the fixed window starting at `windowStart` (Unix
   * seconds), unless the window already holds `limit` hits. Returns the window's count after
   * the call and whether this hit was counted. Across processes sharing the store, at most
   * `limit` hits per window are counted.
   */
  hit(key: string, windowStart: number, limit: number): Promise<{ counted: boolean; count: number }>;
  /**
   * Optional: `hit` for several distinct keys at once (one statement where the store allows),
   * each counted independently as `hit` counts it; the answers in the order given.
   */
  hitAll?(
    hits: ReadonlyArray<{ key: string; windowStart: number; limit: number }>,
  ): Promise<Array<{ counted: boolean; count: number }>>;
  /** Deletes windows that ended before `before`, to keep the table small. */
  prune(before: number): Promise<void>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    rateLimits: RateLimitRepo;
  }
}
