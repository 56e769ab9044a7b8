import type { Kysely } from 'kysely';

/**
 * Passwords (password-auth): one row per user, the hash and the account's lock-out count. Reset
 * links live in `magic_links` with kind `password_reset`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('passwords')
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('passwords_pkey', ['app_id', 'user_id'])
    .addForeignKeyConstraint('passwords_user_fkey', ['app_id', 'user_id'], 'users', ['app_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('passwords').execute();
}
