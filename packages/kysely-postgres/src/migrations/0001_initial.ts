import { type Kysely, sql } from 'kysely';

/**
 * Apps, users and their contacts. Every table but `apps` is scoped by `app_id`; timestamps are
 * bigint Unix seconds. Index and constraint names are spelled out so later migrations can name them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('apps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_key_hash', 'text', (c) => c.notNull())
    .addColumn('public_token_hash', 'text', (c) => c.notNull())
    .addColumn('previous_secret_key_hash', 'text')
    .addColumn('previous_secret_key_expires_at', 'bigint')
    .addColumn('settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Every request looks its App up by the hash of the key it carries.
  await db.schema.createIndex('apps_secret_key_hash_idx').on('apps').column('secret_key_hash').execute();
  await db.schema.createIndex('apps_public_token_hash_idx').on('apps').column('public_token_hash').execute();
  await db.schema
    .createIndex('apps_previous_secret_key_hash_idx')
    .on('apps')
    .column('previous_secret_key_hash')
    .where(sql.ref('previous_secret_key_hash'), 'is not', null)
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('name', 'jsonb')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    // The target of the contacts' (app_id, user_id) foreign keys: a contact's user is in its App.
    .addUniqueConstraint('users_app_id_id_key', ['app_id', 'id'])
    .execute();

  for (const table of ['emails', 'phone_numbers'] as const) {
    await db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('verified_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addForeignKeyConstraint(`${table}_user_fkey`, ['app_id', 'user_id'], 'users', ['app_id', 'id'], (fk) =>
        fk.onDelete('cascade'),
      )
      // ContactRepo.insert relies on this constraint (ON CONFLICT (app_id, address) DO NOTHING).
      .addUniqueConstraint(`${table}_app_id_address_key`, ['app_id', 'address'])
      .execute();
    await db.schema
      .createIndex(`${table}_app_id_user_id_idx`)
      .on(table)
      .columns(['app_id', 'user_id'])
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['phone_numbers', 'emails', 'users', 'apps']) {
    await db.schema.dropTable(table).execute();
  }
}
