import { type Kysely, sql } from 'kysely';

/**
 * Wallets and the sealed seeds they derive from. Wallet ids compare in byte order (COLLATE "C"),
 * whatever the database's collation, because wallet lists page by id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wallets')
    .addColumn('id', 'text', (c) => c.modifyFront(sql`collate "C"`).primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('wallet_type', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('public_address', 'text', (c) => c.notNull())
    .addColumn('key_source', 'text', (c) => c.notNull())
    .addColumn('derivation_path', 'text')
    .addColumn('key_id', 'text')
    .addColumn('sealed_private_key', 'text')
    .addColumn('is_default', 'boolean', (c) => c.notNull())
    .addColumn('is_imported', 'boolean', (c) => c.notNull())
    .addColumn('is_read_only', 'boolean', (c) => c.notNull())
    .addColumn('verified', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint('wallets_user_fkey', ['app_id', 'user_id'], 'users', ['app_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    // One address per App and type: WalletRepo.insert and createDefaultIfAbsent conflict on it.
    .addUniqueConstraint('wallets_app_id_wallet_type_public_address_key', [
      'app_id',
      'wallet_type',
      'public_address',
    ])
    .execute();
  // One default per user and type.
  await db.schema
    .createIndex('wallets_one_default_idx')
    .on('wallets')
    .columns(['app_id', 'user_id', 'wallet_type'])
    .unique()
    .where(sql.ref('is_default'), '=', true)
    .execute();
  // Pages of an App's wallets, and of one user's, in id order.
  await db.schema.createIndex('wallets_app_id_id_idx').on('wallets').columns(['app_id', 'id']).execute();
  await db.schema
    .createIndex('wallets_app_id_user_id_id_idx')
    .on('wallets')
    .columns(['app_id', 'user_id', 'id'])
    .execute();

  await db.schema
    .createTable('seeds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('sealed_entropy', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint('seeds_user_fkey', ['app_id', 'user_id'], 'users', ['app_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    // One seed per user: SeedRepo.insertIfAbsent conflicts on it.
    .addUniqueConstraint('seeds_app_id_user_id_key', ['app_id', 'user_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('seeds').execute();
  await db.schema.dropTable('wallets').execute();
}
