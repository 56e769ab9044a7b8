export type { PostgresStorageOptions } from './constructors.js';
export { pgliteStorage, postgresStorage } from './constructors.js';
export type { AnyKysely, Database } from './database.js';
export type { KyselyStorageOptions, StorageSetup } from './kysely-storage.js';
export { kyselyStorage } from './kysely-storage.js';
export { migrateToLatest } from './migrate.js';
export type { StorageSource } from './open-database.js';
export type { PendingMigration } from './pending-migrations.js';
export { pendingMigrations } from './pending-migrations.js';
