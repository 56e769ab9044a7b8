import type { Kysely } from 'kysely';

/** Email magic links: single-use tokens, stored as keyed hashes, looked up by hash within an App. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('magic_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('email_id', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('device_fingerprint', 'jsonb')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint(
      'magic_links_user_fkey',
      ['app_id', 'user_id'],
      'users',
      ['app_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('magic_links_app_id_token_hash_idx')
    .on('magic_links')
    .columns(['app_id', 'token_hash'])
    .execute();
  await db.schema
    .createIndex('magic_links_app_id_email_id_idx')
    .on('magic_links')
    .columns(['app_id', 'email_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('magic_links').execute();
}
