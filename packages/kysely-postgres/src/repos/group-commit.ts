/**
 * Group commit: writes that arrive while one is in flight wait for it and then go together, as
 * one statement (`writeAll`), up to `maxBatch` at a time. Each caller's promise settles only
 * once the statement holding its item has committed, so nothing is reported written before it
 * is durable. When a batch of several fails, its items are written again one by one: one bad
 * item fails its own caller only.
 */
export function groupCommit<T>(
  writeAll: (items: T[]) => Promise<void>,
  { maxBatch = 100 }: { maxBatch?: number } = {},
): (item: T) => Promise<void> {
  let queue: Array<{ item: T; resolve: () => void; reject: (err: unknown) => void }> = [];
  let running = false;

  const flush = async () => {
    running = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      try {
        await writeAll(batch.map((w) => w.item));
        for (const w of batch) w.resolve();
      } catch (err) {
        if (batch.length === 1) batch[0]!.reject(err);
        else
          await Promise.all(
            batch.map((w) =>
              writeAll([w.item]).then(w.resolve, (e: unknown) => {
                w.reject(e);
              }),
            ),
          );
      }
    }
    running = false;
  };

  return (item) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!running) void flush();
    });
}
