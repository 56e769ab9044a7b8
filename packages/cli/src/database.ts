import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { type CliConfig, pgliteDir } from './config.js';
import { loadPg, loadPglite } from './drivers.js';

/** The database the CLI opened, as @latchkey/kysely-postgres takes it, and raw SQL on it. */
export interface OpenedDatabase {
  source: { pool: pg.Pool } | { pglite: PGlite };
  query<R = Record<string, unknown>>(sql: string): Promise<R[]>;
  close(): Promise<void>;
}

/**
 * False for a PGlite folder not made yet: commands that only read say so rather than open (and
 * so create) an empty database. Postgres exists as far as the CLI can tell before connecting.
 */
export const databaseExists = (config: CliConfig) =>
  Boolean(config.databaseUrl) || existsSync(pgliteDir(config));

/**
 * Postgres through a small pool (connection errors thrown here), or PGlite in the data folder,
 * made when missing. `create: false` leaves a missing PGlite folder uncreated and opens an empty
 * in-memory database instead, for a dry run that must change nothing on disk.
 */
export async function openDatabase(config: CliConfig, { create = true } = {}): Promise<OpenedDatabase> {
  if (config.databaseUrl) {
    const { Pool } = await loadPg();
    const pool = new Pool({ connectionString: config.databaseUrl, max: 2, connectionTimeoutMillis: 5_000 });
    // An idle client dropped by the server emits 'error' on the pool: the next query reconnects.
    pool.on('error', () => {});
    try {
      await pool.query('select 1');
    } catch (err) {
      await pool.end().catch(() => {});
      throw err;
    }
    return {
      source: { pool },
      query: async (sql) => (await pool.query(sql)).rows,
      close: () => pool.end(),
    };
  }
  const dir = pgliteDir(config);
  const PGliteClass = await loadPglite();
  const inMemory = !create && !existsSync(dir);
  if (!inMemory) await mkdir(dir, { recursive: true, mode: 0o700 });
  const pglite = new PGliteClass(inMemory ? undefined : dir);
  try {
    await pglite.waitReady;
  } catch (err) {
    await pglite.close().catch(() => {});
    throw err;
  }
  return {
    source: { pglite },
    query: async (sql) => (await pglite.query(sql)).rows as never,
    close: () => pglite.close(),
  };
}
