import { type Kysely, sql } from 'kysely';

/** Authenticator-app (TOTP) factors and their recovery codes. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('totps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('sealed_secret', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_step', 'bigint')
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint')
    .addColumn('verified_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint('totps_user_fkey', ['app_id', 'user_id'], 'users', ['app_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  // At most one active TOTP per user, whatever races TotpRepo.activate loses.
  await db.schema
    .createIndex('totps_one_active_idx')
    .on('totps')
    .columns(['app_id', 'user_id'])
    .unique()
    .where(sql.ref('status'), '=', 'active')
    .execute();
  await db.schema
    .createIndex('totps_app_id_user_id_idx')
    .on('totps')
    .columns(['app_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    // Codes go with their TOTP, when it is deleted or replaced.
    .addColumn('totp_id', 'text', (c) => c.notNull().references('totps.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('recovery_codes_totp_id_code_hash_idx')
    .on('recovery_codes')
    .columns(['totp_id', 'code_hash'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('recovery_codes').execute();
  await db.schema.dropTable('totps').execute();
}
