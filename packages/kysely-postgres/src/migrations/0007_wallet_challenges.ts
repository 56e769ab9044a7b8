import { type Kysely, sql } from 'kysely';

/**
 * Wallet sign-in challenges: the message a wallet signs, single use by nonce. Ids compare in
 * byte order (COLLATE "C") because `latest` breaks same-second ties by id. A challenge naming a
 * user goes with that user (ON DELETE CASCADE).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wallet_challenges')
    .addColumn('id', 'text', (c) => c.modifyFront(sql`collate "C"`).primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('wallet_type', 'text', (c) => c.notNull())
    .addColumn('public_address', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    // Null when the verify finds or creates the user.
    .addColumn('user_id', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint(
      'wallet_challenges_user_fkey',
      ['app_id', 'user_id'],
      'users',
      ['app_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    // consume finds a challenge by its nonce: one per App.
    .addUniqueConstraint('wallet_challenges_app_id_nonce_key', ['app_id', 'nonce'])
    .execute();
  await db.schema
    .createIndex('wallet_challenges_latest_idx')
    .on('wallet_challenges')
    .columns(['app_id', 'wallet_type', 'public_address', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('wallet_challenges_app_id_expires_at_idx')
    .on('wallet_challenges')
    .columns(['app_id', 'expires_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('wallet_challenges').execute();
}
