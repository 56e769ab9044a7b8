import type { RateLimitRepo } from '@latchkey/core';

export function memoryRateLimitRepo(
  windows: Map<string, { windowStart: number; count: number }>,
): RateLimitRepo {
  return {
    async hit(key, windowStart, limit) {
      const id = `${key}\u0000${windowStart}`;
      const window = windows.get(id) ?? { windowStart, count: 0 };
      const counted = window.count < limit;
      if (counted) window.count += 1;
      windows.set(id, window);
      return { counted, count: window.count };
    },
    async prune(before) {
      for (const [id, w] of windows) if (w.windowStart < before) windows.delete(id);
    },
  };
}
