import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from 'kysely';
import type { AnyKysely } from './database.js';
import { listedMigrations } from './migrate.js';
import { openDatabase, type StorageSource } from './open-database.js';
import { toStorageError } from './storage-errors.js';

/** A migration the database has not applied yet, with the SQL it would run. */
export interface PendingMigration {
  name: string;
  /** Each statement as compiled for Postgres, in order, without a trailing semicolon. */
  statements: string[];
}

/**
 * The migrations `migrateToLatest` would apply to this database, and the SQL of each, without
 * changing anything: which ones are applied is read from the database (a database never
 * migrated has no bookkeeping table, so all are pending), and each pending one runs against a
 * Kysely whose driver records the compiled statements instead of sending them. Same target and
 * options as `migrateToLatest`; connections it opens, it closes.
 */
export async function pendingMigrations(
  target: AnyKysely | (StorageSource & { schema?: string }),
  options: { schema?: string } = {},
): Promise<PendingMigration[]> {
  if (target instanceof Kysely || typeof (target as Partial<AnyKysely>).selectFrom === 'function') {
    return pendingOn(target as AnyKysely, options.schema);
  }
  const source = target as StorageSource & { schema?: string };
  const { db, close } = openDatabase(source);
  try {
    return await pendingOn(db, source.schema ?? options.schema);
  } finally {
    await close();
  }
}

async function pendingOn(db: AnyKysely, schema: string | undefined): Promise<PendingMigration[]> {
  const provider = listedMigrations(schema);
  const migrator = new Migrator({ db, provider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const infos = await migrator.getMigrations().catch((err: unknown) => {
    throw toStorageError(err);
  });
  const pending: PendingMigration[] = [];
  for (const info of infos) {
    if (info.executedAt) continue;
    const recorded: CompiledQuery[] = [];
    const recorder = new Kysely<unknown>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => recordingDriver(recorded),
        createIntrospector: (k) => new PostgresIntrospector(k),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    });
    try {
      await info.migration.up(recorder);
    } finally {
      await recorder.destroy();
    }
    pending.push({ name: info.name, statements: recorded.map(statementText) });
  }
  return pending;
}

/** DDL has no bind parameters; should a migration ever pass one, it is shown beside its statement. */
function statementText(query: CompiledQuery): string {
  if (query.parameters.length === 0) return query.sql;
  return `${query.sql} /* parameters: ${JSON.stringify(query.parameters)} */`;
}

/** A driver that sends nothing: every statement is recorded and answered with no rows. */
function recordingDriver(recorded: CompiledQuery[]): Driver {
  const connection: DatabaseConnection = {
    async executeQuery(query) {
      recorded.push(query);
      return { rows: [] };
    },
    // biome-ignore lint/correctness/useYield: no rows to stream; a migration never streams
    async *streamQuery() {
      throw new Error('pendingMigrations: a migration cannot stream a query');
    },
  };
  return {
    async init() {},
    async acquireConnection() {
      return connection;
    },
    async beginTransaction() {},
    async commitTransaction() {},
    async rollbackTransaction() {},
    async releaseConnection() {},
    async destroy() {},
  };
}
