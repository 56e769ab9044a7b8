/** Time, injected so tests can move it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Unix seconds, the unit of every timestamp Latchkey stores or returns. */
export const nowSeconds = (clock: Clock): number => Math.floor(clock.now() / 1000);
