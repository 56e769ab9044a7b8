import type { Kysely } from 'kysely';

/**
 * WebAuthn credentials (passkeys, security keys) and the single-use challenges of their
 * ceremonies. Both go with their user (ON DELETE CASCADE).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webauthn_credentials')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('sign_count', 'bigint', (c) => c.notNull())
    .addColumn('transports', 'jsonb', (c) => c.notNull())
    .addColumn('aaguid', 'text', (c) => c.notNull())
    .addColumn('rp_id', 'text', (c) => c.notNull())
    .addColumn('authenticator_type', 'text')
    .addColumn('device_type', 'text', (c) => c.notNull())
    .addColumn('backed_up', 'boolean', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addForeignKeyConstraint(
      'webauthn_credentials_user_fkey',
      ['app_id', 'user_id'],
      'users',
      ['app_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    // One registration per credential in an App: insertCredential's ON CONFLICT relies on it.
    .addUniqueConstraint('webauthn_credentials_app_id_credential_id_key', ['app_id', 'credential_id'])
    .execute();
  await db.schema
    .createIndex('webauthn_credentials_app_id_user_id_idx')
    .on('webauthn_credentials')
    .columns(['app_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    // Null for a discoverable sign-in, which names no user.
    .addColumn('user_id', 'text')
    .addColumn('challenge_hash', 'text', (c) => c.notNull())
    .addColumn('ceremony', 'text', (c) => c.notNull())
    .addColumn('rp_id', 'text', (c) => c.notNull())
    .addColumn('user_verification', 'text', (c) => c.notNull())
    .addColumn('authenticator_type', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint(
      'webauthn_challenges_user_fkey',
      ['app_id', 'user_id'],
      'users',
      ['app_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('webauthn_challenges_app_id_challenge_hash_idx')
    .on('webauthn_challenges')
    .columns(['app_id', 'challenge_hash'])
    .execute();
  await db.schema
    .createIndex('webauthn_challenges_app_id_expires_at_idx')
    .on('webauthn_challenges')
    .columns(['app_id', 'expires_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webauthn_challenges').execute();
  await db.schema.dropTable('webauthn_credentials').execute();
}
