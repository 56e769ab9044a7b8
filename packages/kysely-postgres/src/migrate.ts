import { Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { AnyKysely } from './database.js';
import { migrations } from './migrations/index.js';
import { openDatabase, type StorageSource } from './open-database.js';
import { toStorageError } from './storage-errors.js';

/** The migrations from code (no folder scan), each run against the chosen schema. */
export function listedMigrations(schema: string | undefined): MigrationProvider {
  const inSchema = (db: AnyKysely) => (schema ? db.withSchema(schema) : db);
  return {
    async getMigrations() {
      const scoped: Record<string, Migration> = {};
      for (const [name, migration] of Object.entries(migrations)) {
        scoped[name] = {
          up: (db) => migration.up(inSchema(db), schema),
          ...(migration.down ? { down: (db: AnyKysely) => migration.down!(inSchema(db), schema) } : {}),
        };
      }
      return scoped;
    },
  };
}

/**
 * Applies every pending migration on `db`, in `schema` (created if absent) or the search path.
 * Kysely's migration lock serialises concurrent callers, so many processes may start at once;
 * what is already applied is skipped. Returns the names it applied.
 */
export async function migrateDatabase(db: AnyKysely, schema?: string): Promise<{ applied: string[] }> {
  const migrator = new Migrator({
    db,
    provider: listedMigrations(schema),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw toStorageError(error);
  return { applied: results.filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

/**
 * Brings the database up to the latest migration. Takes a Kysely instance (with the schema as
 * second argument) or the same options as `kyselyStorage`; connections it opens, it closes.
 */
export async function migrateToLatest(
  target: AnyKysely | (StorageSource & { schema?: string }),
  options: { schema?: string } = {},
): Promise<{ applied: string[] }> {
  // Duck-typed too: a host may load another copy of kysely, whose instances fail instanceof.
  if (target instanceof Kysely || typeof (target as Partial<AnyKysely>).selectFrom === 'function') {
    return migrateDatabase(target as AnyKysely, options.schema);
  }
  const source = target as StorageSource & { schema?: string };
  const { db, close } = openDatabase(source);
  try {
    return await migrateDatabase(db, source.schema ?? options.schema);
  } finally {
    await close();
  }
}
