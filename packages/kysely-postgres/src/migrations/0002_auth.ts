import { type Kysely, sql } from 'kysely';

/**
 * One-time codes, sessions, session-JWT signing keys and rate-limit windows. Rows of a user go
 * with the user (ON DELETE CASCADE); rate-limit windows belong to no App.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('otps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('method_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('device_fingerprint', 'jsonb')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint('otps_user_fkey', ['app_id', 'user_id'], 'users', ['app_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    // One code per method: OtpRepo.replace upserts on it, consume looks it up.
    .addUniqueConstraint('otps_app_id_method_id_key', ['app_id', 'method_id'])
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('last_active_at', 'bigint', (c) => c.notNull())
    .addColumn('factors', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('device_fingerprint', 'jsonb')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint('sessions_user_fkey', ['app_id', 'user_id'], 'users', ['app_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('sessions_app_id_token_hash_idx')
    .on('sessions')
    .columns(['app_id', 'token_hash'])
    .execute();
  await db.schema
    .createIndex('sessions_app_id_user_id_idx')
    .on('sessions')
    .columns(['app_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('signing_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('alg', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'jsonb', (c) => c.notNull())
    .addColumn('sealed_private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('retired_at', 'bigint')
    .execute();
  // At most one unretired key per App: SigningKeyRepo.insertIfNoActive conflicts on it.
  await db.schema
    .createIndex('signing_keys_one_active_idx')
    .on('signing_keys')
    .column('app_id')
    .unique()
    .where(sql.ref('retired_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('signing_keys_app_id_created_at_idx')
    .on('signing_keys')
    .columns(['app_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limits_pkey', ['key', 'window_start'])
    .execute();
  await db.schema
    .createIndex('rate_limits_window_start_idx')
    .on('rate_limits')
    .column('window_start')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['rate_limits', 'signing_keys', 'sessions', 'otps']) {
    await db.schema.dropTable(table).execute();
  }
}
