import type { Kysely } from 'kysely';

/**
 * A magic link used from a device that does not match is no longer spent but counted (part of
 * the 0008 security fixes, in a file of its own because 0008_security had already landed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('magic_links')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('magic_links').dropColumn('attempts').execute();
}
