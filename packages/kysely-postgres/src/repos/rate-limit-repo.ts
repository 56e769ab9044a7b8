import type { RateLimitRepo } from '@latchkey/core';
import type { LatchkeyDb } from '../database.js';

export function kyselyRateLimitRepo(db: LatchkeyDb): RateLimitRepo {
  const current = async (key: string, windowStart: number) => {
    const row = await db
      .selectFrom('rate_limits')
      .select('count')
      .where('key', '=', key)
      .where('window_start', '=', windowStart)
      .executeTakeFirst();
    return row ? Number(row.count) : 0;
  };

  return {
    async hit(key, windowStart, limit) {
      if (limit < 1) return { counted: false, count: await current(key, windowStart) };
      // One upsert: the row lock serialises concurrent hits, and the WHERE stops at the limit.
      const row = await db
        .insertInto('rate_limits')
        .values({ key, window_start: windowStart, count: 1 })
        .onConflict((oc) =>
          oc
            .columns(['key', 'window_start'])
            .doUpdateSet((eb) => ({ count: eb('rate_limits.count', '+', 1) }))
            .where('rate_limits.count', '<', limit),
        )
        .returning('count')
        .executeTakeFirst();
      if (row) return { counted: true, count: Number(row.count) };
      return { counted: false, count: await current(key, windowStart) };
    },

    async prune(before) {
      await db.deleteFrom('rate_limits').where('window_start', '<', before).execute();
    },
  };
}
