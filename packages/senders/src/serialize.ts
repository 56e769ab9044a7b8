const tails = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` after every earlier call with the same `key` has settled (FIFO). Keyed at module
 * level, so two senders writing one file also take turns.
 */
export function serialized<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const run = (tails.get(key) ?? Promise.resolve()).then(fn);
  const tail = run.catch(() => {});
  tails.set(key, tail);
  // Forget a key once its queue drains, so the map does not grow with every path ever used.
  void tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key);
  });
  return run;
}
