import type { RateLimitRepo } from '@latchkey/core';
import { sql } from 'kysely';
import type { LatchkeyDb } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';

/**
 * `schema`: where the tables are (the builder's `withSchema` does not reach raw SQL). `early`:
 * the statement commits without waiting for its WAL to reach disk (docs/decisions.md, "Rate
 * counters commit early"); only for a statement that is its own transaction.
 */
export interface HitShape {
  schema: string | undefined;
  early: boolean;
}

/**
 * Every window in one upsert: the row lock serialises concurrent hits on a window, and each row's
 * own limit stops its count (`WHERE count < lim`); the rows are locked in key order, so two
 * requests sharing keys never deadlock. A window that refused reads its count from the
 * statement's snapshot. The windows travel as one JSON parameter, so any number of them is one
 * text.
 *
 * A window shared by every send of an App (`per_app`, a route's `by: app` or one client IP's
 * window) is one row that each hit locks until its transaction ends. With a durable commit that is
 * until the commit's WAL flush (about 4 ms on a plain disk), and the next hit cannot even start
 * before: every send of the App queues behind one fsync at a time, whatever the pool or the
 * in-flight count. `early` lets the lock go as soon as the commit is recorded; the count is as
 * exact for concurrent callers as before (the next hit reads the committed count).
 */
export const hitMany = defineStatement(
  (_db, [windows]: [string], { schema, early }: HitShape) => {
    const table = sql.table(schema ? `${schema}.rate_limits` : 'rate_limits');
    // Volatile, so the CTE is evaluated once, before the insert reads from it; `true`: for this
    // statement's own transaction only, undone at its end.
    const commitEarly = early
      ? sql`, commit_early as (select set_config('synchronous_commit', 'off', true) as mode)`
      : sql``;
    const fromCommit = early ? sql`, commit_early` : sql``;
    return sql<{ counted: number | string | null; current: number | string | null }>`
        with input as (select key, window_start, lim, ord
          from jsonb_to_recordset(${windows}::jsonb) as i (key text, window_start bigint, lim bigint, ord int))${commitEarly},
        counted as (
          insert into ${table} as r (key, window_start, count)
          select key, window_start, 1 from input${fromCommit} where lim >= 1 order by key, window_start
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
  ({ schema, early }) => `${schema ?? ''}:${early ? 'early' : 'durable'}`,
);

/** `schema`: where the tables are, for the raw statement. */
export function kyselyRateLimitRepo(db: LatchkeyDb, statements: Statements, schema?: string): RateLimitRepo {
  // Inside a transaction the setting would reach every write of it: there, the commit stays durable.
  const shape: HitShape = { schema, early: !db.isTransaction };

  const hitAll: NonNullable<RateLimitRepo['hitAll']> = async (hits) => {
    // Two hits on one key would be one row updated twice in a statement, which Postgres refuses.
    if (new Set(hits.map((h) => `${h.key}\u0000${h.windowStart}`)).size !== hits.length) {
      const answers = [];
      for (const h of hits) answers.push(...(await hitAll([h])));
      return answers;
    }
    const windows = JSON.stringify(
      hits.map((h, ord) => ({ key: h.key, window_start: h.windowStart, lim: h.limit, ord })),
    );
    const rows = await statements.run(hitMany, [windows], shape);
    return rows.map((row) =>
      row.counted !== null
        ? { counted: true, count: Number(row.counted) }
        : { counted: false, count: Number(row.current ?? 0) },
    );
  };

  return {
    async hit(key, windowStart, limit) {
      const [answer] = await hitAll([{ key, windowStart, limit }]);
      return answer!;
    },

    hitAll,

    async prune(before) {
      await db.deleteFrom('rate_limits').where('window_start', '<', before).execute();
    },
  };
}
