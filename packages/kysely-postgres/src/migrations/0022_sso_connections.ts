import { type Kysely, sql } from 'kysely';

/**
 * Organizations' SSO (OpenID Connect) connections: one per organization (insertConnection's ON
 * CONFLICT relies on it), naming it by (app_id, organization_id) so it cannot be another App's,
 * and going with it (ON DELETE CASCADE). The client secret is stored sealed only. Email domains
 * are a jsonb array, looked up by containment (`email_domain` at start) through a GIN index.
 * Numbered 0022: 0021 is organization-scoped sessions.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sso_connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_secret_sealed', 'text', (c) => c.notNull())
    .addColumn('client_secret_hint', 'text', (c) => c.notNull())
    .addColumn('scopes', 'jsonb')
    .addColumn('email_domains', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('sso_connections_app_id_organization_id_key', ['app_id', 'organization_id'])
    .addForeignKeyConstraint(
      'sso_connections_organization_fkey',
      ['app_id', 'organization_id'],
      'organizations',
      ['app_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('sso_connections_email_domains_idx')
    .on('sso_connections')
    .using('gin')
    .expression(sql`email_domains jsonb_path_ops`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sso_connections').execute();
}
