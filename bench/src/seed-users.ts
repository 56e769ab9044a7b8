import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/** Where the server under test keeps its tables: a Postgres schema, or the PGlite folder. */
export type SeedTarget = { databaseUrl: string; schema: string } | { pgliteDir: string };

/**
 * Adds users `from`..`to - 1` to `appId` straight in the storage tables (not through the API):
 * each with an email address and a live session, as a busy App has. One INSERT … SELECT over
 * generate_series per table, in batches so a million rows stay within memory.
 */
export async function seedUsers(target: SeedTarget, appId: string, from: number, to: number): Promise<void> {
  const query = await connect(target);
  const now = Math.floor(Date.now() / 1000);
  const id = (prefix: string) => `'${prefix}_seed' || lpad(g::text, 9, '0')`;
  try {
    for (let start = from; start < to; start += 100_000) {
      const end = Math.min(to, start + 100_000) - 1;
      const series = `from generate_series(${start}, ${end}) g`;
      await query(
        `insert into users (id, app_id, name, status, created_at, updated_at)
         select ${id('user')}, $1, null, 'active', $2::bigint, $2 ${series}`,
        [appId, now],
      );
      await query(
        `insert into emails (id, app_id, user_id, address, verified_at, created_at)
         select ${id('email')}, $1, ${id('user')}, 'seed' || g || '@bench.example.com', $2, $2 ${series}`,
        [appId, now],
      );
      await query(
        `insert into sessions (id, app_id, user_id, token_hash, started_at, expires_at, last_active_at, created_at, updated_at)
         select ${id('session')}, $1, ${id('user')}, md5(g::text) || md5('s' || g), $2, $2::bigint + 86400, $2, $2, $2 ${series}`,
        [appId, now],
      );
    }
  } finally {
    await query.close();
  }
}

/**
 * After a bulk load: VACUUM ANALYZE (visibility map and statistics, so the planner and
 * index-only scans see the new rows, and autovacuum has nothing left to do) and a CHECKPOINT (the
 * dirty pages written now, not during the measurement).
 */
export async function settle(target: SeedTarget): Promise<void> {
  const query = await connect(target);
  try {
    await query('vacuum analyze');
    await query('checkpoint');
  } finally {
    await query.close();
  }
}

type Query = ((sql: string, params?: unknown[]) => Promise<unknown>) & { close(): Promise<void> };

async function connect(target: SeedTarget): Promise<Query> {
  if ('pgliteDir' in target) {
    const db = new PGlite(path.join(target.pgliteDir, 'pglite'));
    await db.waitReady;
    return Object.assign((sql: string, params?: unknown[]) => db.query(sql, params), {
      close: () => db.close(),
    });
  }
  const client = new pg.Client({ connectionString: target.databaseUrl });
  await client.connect();
  await client.query(`set search_path to "${target.schema}"`);
  return Object.assign((sql: string, params?: unknown[]) => client.query(sql, params), {
    close: () => client.end(),
  });
}
