/**
 * Races work against a fixed time limit with one timer for all requests, not one `setTimeout`
 * and `clearTimeout` per request. Every request gets the same limit, so deadlines fall in the
 * order the requests arrived: the timer only ever waits for the oldest request still running,
 * and entries that settled are dropped from the front as soon as they reach it.
 */
export function deadlineRacer(limitMs: number, now: () => number = Date.now) {
  interface Pending {
    due: number;
    settled: boolean;
    expire: () => void;
  }
  const queue: Pending[] = [];
  let head = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const dropSettled = () => {
    while (head < queue.length && queue[head]!.settled) head++;
    // Reclaim the array once the live part is small, so the queue never grows without bound.
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
  };

  const arm = () => {
    if (timer !== undefined || head >= queue.length) return;
    timer = setTimeout(fire, Math.max(0, queue[head]!.due - now()));
  };

  const fire = () => {
    timer = undefined;
    const t = now();
    while (head < queue.length && (queue[head]!.settled || queue[head]!.due <= t)) {
      const entry = queue[head++]!;
      if (!entry.settled) {
        entry.settled = true;
        entry.expire();
      }
    }
    dropSettled();
    if (head >= queue.length) {
      queue.length = 0;
      head = 0;
    }
    arm();
  };

  const settle = (entry: Pending) => {
    entry.settled = true;
    if (queue[head] !== entry) return;
    dropSettled();
    // Nothing left to wait for: no timer keeps the process alive after the last request.
    if (head >= queue.length && timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
      queue.length = 0;
      head = 0;
    }
  };

  /** `work()`, or `timedOut()` thrown once `limitMs` has passed without it settling. */
  return function race<T>(work: () => Promise<T>, timedOut: () => unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { due: now() + limitMs, settled: false, expire: () => reject(timedOut()) };
      queue.push(entry);
      arm();
      work().then(
        (value) => {
          if (entry.settled) return;
          settle(entry);
          resolve(value);
        },
        (err: unknown) => {
          if (entry.settled) return;
          settle(entry);
          reject(err);
        },
      );
    });
  };
}
