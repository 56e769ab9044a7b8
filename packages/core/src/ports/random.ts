/** Randomness, injected so tests can be deterministic where they need to be. */
export interface RandomSource {
  /** `n` bytes from a cryptographically secure generator. */
  bytes(n: number): Uint8Array;
}

/** How many bytes one call into the generator fetches for the small draws (ids, codes, tokens). */
export const RANDOM_POOL_BYTES = 4096;

/**
 * Draws of up to a quarter of the pool come from a buffer `fill` refills a pool at a time, each
 * byte handed out once and as a copy: one call into the generator is a few µs (a system call
 * through OpenSSL), the largest cost of an id, and a signature or a sign-in makes several ids.
 * Larger draws (keys, seeds) are filled on their own.
 */
export function pooledRandom(fill: (into: Uint8Array) => void): RandomSource {
  const pool = new Uint8Array(RANDOM_POOL_BYTES);
  let used = RANDOM_POOL_BYTES;
  return {
    bytes(n) {
      if (n > RANDOM_POOL_BYTES / 4) {
        const out = new Uint8Array(n);
        fill(out);
        return out;
      }
      if (used + n > RANDOM_POOL_BYTES) {
        fill(pool);
        used = 0;
      }
      const out = pool.slice(used, used + n);
      // Wiped as it leaves, so a byte handed out is never in the pool (nor in a heap dump of it).
      pool.fill(0, used, used + n);
      used += n;
      return out;
    },
  };
}

export const systemRandom: RandomSource = pooledRandom((into) => crypto.getRandomValues(into));
