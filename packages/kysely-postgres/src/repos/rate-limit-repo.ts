import type { RateLimitRepo } from '@latchkey/core';
import { sql } from 'kysely';
import type { LatchkeyDb } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';

// One upsert: the row lock serialises concurrent hits, and the WHERE stops at the limit.
export const hitOne = defineStatement((db, [key, windowStart, limit]: [string, number, number]) =>
  db
    .insertInto('rate_limits')
    .values({ key, window_start: windowStart, count: 1 })
    .onConflict((oc) =>
      oc
        .columns(['key', 'window_start'])
        .doUpdateSet((eb) => ({ count: eb('rate_limits.count', '+', 1) }))
        .where('rate_limits.count', '<', limit),
    )
    .returning('count'),
);

/**
 * Every window in one upsert: each row's own limit stops its count, as `hitOne`'s WHERE does,
 * and the rows are locked in key order, so two requests sharing keys never deadlock. A window
 * that refused reads its count from the statement's snapshot. The windows travel as one JSON
 * parameter, so any number of them is one text. `schema`: where the tables are (the builder's
 * `withSchema` does not reach raw SQL).
 */
export const hitMany = defineStatement(
  (_db, [windows]: [string], schema: string | undefined) => {
    const table = sql.table(schema ? `${schema}.rate_limits` : 'rate_limits');
    return sql<{ counted: number | string | null; current: number | string | null }>`
        with input as (select key, window_start, lim, ord
          from jsonb_to_recordset(${windows}::jsonb) as i (key text, window_start bigint, lim bigint, ord int)),
        counted as (
          insert into ${table} as r (key, window_start, count)
          select key, window_start, 1 from input where lim >= 1 order by key, window_start
          on conflict (key, window_start) do update set count = r.count + 1
          where r.count < (select i.lim from input i
            where i.key = excluded.key and i.window_start = excluded.window_start)
          returning key, window_start, count
        )
        select c.count as counted,
          (select r.count from ${table} r
            where r.key = input.key and r.window_start = input.window_start) as current
        from input left join counted c on c.key = input.key and c.window_start = input.window_start
        order by input.ord`;
  },
  (schema) => schema ?? '',
);

/** `schema`: where the tables are, for the raw statement. */
export function kyselyRateLimitRepo(db: LatchkeyDb, statements: Statements, schema?: string): RateLimitRepo {
  const current = async (key: string, windowStart: number) => {
    const row = await db
      .selectFrom('rate_limits')
      .select('count')
      .where('key', '=', key)
      .where('window_start', '=', windowStart)
      .executeTakeFirst();
    return row ? Number(row.count) : 0;
  };

  const hit: RateLimitRepo['hit'] = async (key, windowStart, limit) => {
    if (limit < 1) return { counted: false, count: await current(key, windowStart) };
    const [row] = await statements.run(hitOne, [key, windowStart, limit]);
    if (row) return { counted: true, count: Number(row.count) };
    return { counted: false, count: await current(key, windowStart) };
  };

  return {
    hit,

    async hitAll(hits) {
      // Two hits on one key would be one row updated twice in a statement, which Postgres refuses.
      if (new Set(hits.map((h) => `${h.key}\u0000${h.windowStart}`)).size !== hits.length) {
        const answers = [];
        for (const h of hits) answers.push(await hit(h.key, h.windowStart, h.limit));
        return answers;
      }
      const windows = JSON.stringify(
        hits.map((h, ord) => ({ key: h.key, window_start: h.windowStart, lim: h.limit, ord })),
      );
      const rows = await statements.run(hitMany, [windows], schema);
      return rows.map((row) =>
        row.counted !== null
          ? { counted: true, count: Number(row.counted) }
          : { counted: false, count: Number(row.current ?? 0) },
      );
    },

    async prune(before) {
      await db.deleteFrom('rate_limits').where('window_start', '<', before).execute();
    },
  };
}
