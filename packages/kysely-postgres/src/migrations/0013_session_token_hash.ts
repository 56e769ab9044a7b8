import type { Kysely } from 'kysely';

/**
 * A session token looked up in every App at once (`appIdByTokenHash`): a host serving several
 * Apps takes a bare token without being told its App. The (app_id, token_hash) index cannot
 * answer a lookup that leaves out its leading column.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('sessions_token_hash_idx').on('sessions').column('token_hash').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sessions_token_hash_idx').execute();
}
