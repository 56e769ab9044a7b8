import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import type { AnyKysely } from './database.js';

const COUNTED_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * A Kysely dialect over an embedded PGlite. PGlite has one connection, so the driver hands it
 * to one holder at a time: a query outside a transaction waits until a running transaction has
 * committed or rolled back, rather than running inside it. `owned`: whether `destroy()` closes PGlite.
 */
export function pgliteDialect(pglite: PGlite, owned: boolean): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => pgliteDriver(pglite, owned),
    createIntrospector: (db: AnyKysely) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

function pgliteDriver(pglite: PGlite, owned: boolean): Driver {
  const connection = pgliteConnection(pglite);
  const lock = createLock();
  let release: (() => void) | undefined;
  const run = (sql: string) => connection.executeQuery(CompiledQuery.raw(sql)).then(() => {});

  return {
    async init() {
      await pglite.waitReady;
    },
    async acquireConnection() {
      const unlock = await lock();
      release = unlock;
      return connection;
    },
    async releaseConnection() {
      const unlock = release;
      release = undefined;
      unlock?.();
    },
    beginTransaction: (_conn, settings) => {
      const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
      const access = settings.accessMode ? ` ${settings.accessMode}` : '';
      return run(`start transaction${isolation}${access}`);
    },
    commitTransaction: () => run('commit'),
    rollbackTransaction: () => run('rollback'),
    async destroy() {
      // Wait for the current holder, so closing never cuts a transaction short.
      const unlock = await lock();
      try {
        if (owned && !pglite.closed) await pglite.close();
      } finally {
        unlock();
      }
    },
  };
}

function pgliteConnection(pglite: PGlite): DatabaseConnection {
  const executeQuery = async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
    const result = await pglite.query<R>(query.sql, [...query.parameters]);
    const count = result.rowCount ?? result.affectedRows;
    return {
      rows: result.rows,
      ...(result.command && COUNTED_COMMANDS.has(result.command) && count !== undefined
        ? { numAffectedRows: BigInt(count) }
        : {}),
    };
  };
  return {
    executeQuery,
    // PGlite has no cursors; the whole result is one chunk.
    async *streamQuery<R>(query: CompiledQuery) {
      yield await executeQuery<R>(query);
    },
  };
}

/** A FIFO lock: `await lock()` resolves to the function that lets the next waiter in. */
function createLock() {
  let tail: Promise<void> = Promise.resolve();
  return async (): Promise<() => void> => {
    let unlock!: () => void;
    const held = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    const previous = tail;
    tail = previous.then(() => held);
    await previous;
    return unlock;
  };
}
