/**
 * Calls that arrive while a statement is in flight wait for it and then run together as one
 * statement (`runAll`, given the items in arrival order and answering with one result each, in the
 * same order), up to `maxBatch` at a time; a call that arrives when fewer than `maxInFlight`
 * statements are in flight (by default one) runs at once. A call therefore never joins a
 * statement that started before it arrived: a read sees every write committed before the call.
 * For writes this is group commit: each caller's promise settles only once the statement holding
 * its item has committed, so nothing is reported written before it is durable. When a batch of
 * several fails, its items run again one by one: one bad item fails its own caller only.
 */
export function batched<T, R>(
  runAll: (items: T[]) => Promise<R[]>,
  { maxBatch = 100, maxInFlight = 1 }: { maxBatch?: number; maxInFlight?: number } = {},
): (item: T) => Promise<R> {
  type Waiting = { item: T; resolve: (result: R) => void; reject: (err: unknown) => void };
  let queue: Waiting[] = [];
  let inFlight = 0;

  const runOne = async (w: Waiting) => {
    try {
      w.resolve((await runAll([w.item]))[0]!);
    } catch (err) {
      w.reject(err);
    }
  };

  const runBatch = async (batch: Waiting[]) => {
    if (batch.length === 1) return runOne(batch[0]!);
    let results: R[];
    try {
      results = await runAll(batch.map((w) => w.item));
    } catch {
      await Promise.all(batch.map(runOne));
      return;
    }
    for (const [i, w] of batch.entries()) w.resolve(results[i]!);
  };

  // Each finished statement starts the next batch from what queued meanwhile.
  const pump = () => {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      inFlight++;
      void runBatch(batch).finally(() => {
        inFlight--;
        pump();
      });
    }
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      pump();
    });
}
