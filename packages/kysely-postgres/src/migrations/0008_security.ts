import type { Kysely } from 'kysely';

/**
 * Recovery codes get a failure count and lock of their own, apart from TOTP codes', so locking
 * a user's TOTP codes (which anyone who knows the user id can do) does not lock recovery too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('totps')
    .addColumn('recovery_failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('totps').addColumn('recovery_locked_until', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('totps').dropColumn('recovery_locked_until').execute();
  await db.schema.alterTable('totps').dropColumn('recovery_failed_attempts').execute();
}
