import type { Kysely } from 'kysely';

/**
 * Invitations to organizations. An invitation names its organization by (app_id, id), as members
 * do, so it can never be another App's, and goes with it (ON DELETE CASCADE). A token hash is one
 * per App: accepting finds the invitation by it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organization_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('roles', 'jsonb', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('accepted_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('organization_invitations_app_id_token_hash_key', ['app_id', 'token_hash'])
    .addForeignKeyConstraint(
      'organization_invitations_organization_fkey',
      ['app_id', 'organization_id'],
      'organizations',
      ['app_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // An organization's invitations, a page at a time.
  await db.schema
    .createIndex('organization_invitations_app_id_organization_id_idx')
    .on('organization_invitations')
    .columns(['app_id', 'organization_id', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('organization_invitations').execute();
}
