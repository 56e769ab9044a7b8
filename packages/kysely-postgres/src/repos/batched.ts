/**
 * Calls that arrive while one is in flight wait for it and then run together as one statement
 * (`runAll`, given the items in arrival order and answering with one result each, in the same
 * order), up to `maxBatch` at a time; a call that arrives when nothing is in flight runs at once.
 * For writes this is group commit: each caller's promise settles only once the statement holding
 * its item has committed, so nothing is reported written before it is durable. When a batch of
 * several fails, its items run again one by one: one bad item fails its own caller only.
 */
export function batched<T, R>(
  runAll: (items: T[]) => Promise<R[]>,
  { maxBatch = 100 }: { maxBatch?: number } = {},
): (item: T) => Promise<R> {
  type Waiting = { item: T; resolve: (result: R) => void; reject: (err: unknown) => void };
  let queue: Waiting[] = [];
  let running = false;

  const runOne = async (w: Waiting) => {
    try {
      w.resolve((await runAll([w.item]))[0]!);
    } catch (err) {
      w.reject(err);
    }
  };

  const flush = async () => {
    running = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      if (batch.length === 1) {
        await runOne(batch[0]!);
        continue;
      }
      let results: R[];
      try {
        results = await runAll(batch.map((w) => w.item));
      } catch {
        await Promise.all(batch.map(runOne));
        continue;
      }
      for (const [i, w] of batch.entries()) w.resolve(results[i]!);
    }
    running = false;
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!running) void flush();
    });
}
