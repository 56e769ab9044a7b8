import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import type { StatementNames } from './prepared-statements.js';
import { isConnectionError } from './storage-errors.js';

/** How long a query waits for a connection before failing as `storage_unavailable`. */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 5_000;

/**
 * A pg Pool for `postgresStorage`: bounded connect wait, and idle-client errors handled. pg is an
 * optional peer (a PGlite-only host need not install it), so it is loaded here, on first use.
 */
export async function createPool(config: pg.PoolConfig): Promise<pg.Pool> {
  const { default: driver } = await import('pg');
  const pool = new driver.Pool({ connectionTimeoutMillis: DEFAULT_CONNECTION_TIMEOUT_MS, ...config });
  // An idle client whose backend goes away makes the pool emit 'error'; unhandled, that would
  // crash the process. The pool has already dropped the client, and the next query connects anew.
  pool.on('error', () => {});
  return pool;
}

/**
 * The pool as Kysely's PostgresDialect takes it, with one addition: a client whose connection
 * failed while checked out is destroyed on release instead of going back to the pool, so the
 * pool recovers by itself once Postgres is back. `owned`: whether `end()` ends the pg Pool.
 * `names`: texts compiled once (prepared-statements.ts) go as named prepared statements here too,
 * so a transaction's statements are parsed once per connection as well.
 */
export function guardedPool(pool: pg.Pool, owned: boolean, names?: StatementNames): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      let broken: Error | undefined;
      // Checked-out clients have no 'error' listener in pg-pool; a backend terminated between
      // two queries of a transaction would otherwise be an uncaught 'error' event.
      const onError = (err: Error) => {
        broken = err;
      };
      client.on('error', onError);
      const query = async (sql: string, parameters: ReadonlyArray<unknown>) => {
        try {
          const name = names?.of(sql);
          const values = [...parameters];
          return await (name ? client.query({ name, text: sql, values }) : client.query(sql, values));
        } catch (err) {
          if (isConnectionError(err)) broken = err as Error;
          throw err;
        }
      };
      // Only the (sql, parameters) form of query: without a cursor class Kysely never streams.
      return {
        query,
        release() {
          client.removeListener('error', onError);
          client.release(broken);
        },
      } as unknown as PostgresPoolClient;
    },
    async end() {
      if (owned) await pool.end();
    },
  };
}
