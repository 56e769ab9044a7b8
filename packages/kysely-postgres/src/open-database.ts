import type { PGlite } from '@electric-sql/pglite';
import { LatchkeyError } from '@latchkey/core';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { AnyKysely, Database } from './database.js';
import { guardedPool } from './guarded-pool.js';
import { pgliteDialect } from './pglite-dialect.js';
import {
  poolStatements,
  type StatementCache,
  statementCache,
  statementNames,
} from './prepared-statements.js';
import { pgListen } from './revocations/pg-listen.js';
import { pgliteListen } from './revocations/pglite-listen.js';
import type { Listen } from './revocations/shared-channel.js';

/** The database: exactly one of a pg Pool (real Postgres), an embedded PGlite, or a host app's Kysely. */
export type StorageSource =
  | { pool: pg.Pool; pglite?: never; db?: never }
  | { pglite: PGlite; pool?: never; db?: never }
  | { db: AnyKysely; pool?: never; pglite?: never };

export interface OpenDatabase {
  db: Kysely<Database>;
  /** Ends what was opened here: never the host's pool, PGlite or Kysely. */
  close(): Promise<void>;
  /** The statements compiled once (prepared-statements.ts), with their names on a pg Pool. */
  statements: StatementCache;
  /** On a pg Pool: those statements sent to it as named prepared statements, outside transactions. */
  pool?: ReturnType<typeof poolStatements>;
  /**
   * LISTEN on the database, for the revocation channel: a client of its own beside a pg Pool,
   * PGlite's own listeners. None on a host's Kysely, which shows no connection to listen on.
   */
  listen?: Listen;
}

/**
 * A Kysely on the source. `owned` says whether the pool or PGlite was created by this package
 * (the convenience constructors), so `close()` ends it too.
 */
export function openDatabase(source: StorageSource, owned = false): OpenDatabase {
  const given = [source.pool, source.pglite, source.db].filter((s) => s !== undefined).length;
  if (given !== 1) {
    throw new LatchkeyError('internal_error', 'Pass exactly one of `pool`, `pglite` or `db` to the storage.');
  }
  if (source.db) {
    return { db: source.db as Kysely<Database>, close: async () => {}, statements: statementCache() };
  }
  const names = source.pool ? statementNames() : undefined;
  const dialect = source.pool
    ? new PostgresDialect({ pool: guardedPool(source.pool, owned, names) })
    : pgliteDialect(source.pglite!, owned);
  const db = new Kysely<Database>({ dialect });
  return {
    db,
    close: () => db.destroy(),
    statements: statementCache(names),
    ...(source.pool && names
      ? { pool: poolStatements(source.pool, names), listen: pgListen(source.pool) }
      : { listen: pgliteListen(source.pglite!, (fn) => db.connection().execute(fn)) }),
  };
}
