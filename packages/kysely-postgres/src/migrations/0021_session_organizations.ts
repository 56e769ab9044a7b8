import { type Kysely, sql } from 'kysely';

/**
 * A session scoped to an organization (`POST /v1/organizations/{id}/sessions/exchange`). No
 * foreign key: a membership change or the organization's deletion revokes its sessions (so every
 * process refuses their JWTs through the revocation record), which a cascade would not say why.
 * The partial index finds an organization's (or one member's) live sessions to revoke them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('organization_id', 'text').execute();
  await db.schema
    .createIndex('sessions_app_id_organization_id_idx')
    .on('sessions')
    .columns(['app_id', 'organization_id', 'user_id'])
    .where(sql.ref('organization_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sessions_app_id_organization_id_idx').execute();
  await db.schema.alterTable('sessions').dropColumn('organization_id').execute();
}
