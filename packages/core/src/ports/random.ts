/** Randomness, injected so tests can be deterministic where they need to be. */
export interface RandomSource {
  /** `n` bytes from a cryptographically secure generator. */
  bytes(n: number): Uint8Array;
}

export const systemRandom: RandomSource = {
  bytes: (n) => crypto.getRandomValues(new Uint8Array(n)),
};
