import type { RateLimitRepo } from '@latchkey/core';

export function memoryRateLimitRepo(
  windows: Map<string, { windowStart: number; count: number }>,
): RateLimitRepo {
  const hit = (key: string, windowStart: number, limit: number) => {
    const id = `${key}\u0000${windowStart}`;
    const window = windows.get(id) ?? { windowStart, count: 0 };
    const counted = window.count < limit;
    if (counted) window.count += 1;
    windows.set(id, window);
    return { counted, count: window.count };
  };
  return {
    hit: async (key, windowStart, limit) => hit(key, windowStart, limit),
    hitAll: async (hits) => hits.map((h) => hit(h.key, h.windowStart, h.limit)),
    async prune(before) {
      for (const [id, w] of windows) if (w.windowStart < before) windows.delete(id);
    },
  };
}
