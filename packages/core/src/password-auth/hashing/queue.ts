import { LatchkeyError } from '../../errors.js';

export interface BoundedQueue {
  /** Runs `task` when one of `concurrency` slots is free; refuses at once when `maxPending` wait or run. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running or waiting. */
  readonly pending: number;
}

/**
 * A first-in first-out queue with a ceiling. Password hashing costs tens of milliseconds of a
 * core and 19 MiB each: past the ceiling a burst is answered 429 at once, instead of every
 * request waiting seconds and the process holding a gigabyte.
 */
export function boundedQueue(concurrency: number, maxPending: number): BoundedQueue {
  let running = 0;
  const waiting: Array<() => void> = [];
  const next = () => {
    running--;
    waiting.shift()?.();
  };
  return {
    get pending() {
      return running + waiting.length;
    },
    run<T>(task: () => Promise<T>): Promise<T> {
      if (running + waiting.length >= maxPending)
        return Promise.reject(
          new LatchkeyError(
            'rate_limited',
            'Too many password checks are waiting on this server; retry shortly.',
            {
              retryAfter: 1,
            },
          ),
        );
      const start = () => {
        running++;
        // An async wrapper, so a task that throws before its first await still frees its slot.
        return (async () => task())().finally(next);
      };
      if (running < concurrency) return start();
      return new Promise<T>((resolve, reject) => waiting.push(() => start().then(resolve, reject)));
    },
  };
}
