import type { Kysely } from 'kysely';

/**
 * Organizations and their members. A slug is one per App (insert's ON CONFLICT relies on it); a
 * user is one member per organization (insertMember's). Members name their organization and
 * user by (app_id, id), so neither can be another App's, and go with either (ON DELETE CASCADE).
 * Roles are a jsonb array: the last-owner check counts `roles @> '["owner"]'`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('allowed_email_domains', 'jsonb', (c) => c.notNull())
    .addColumn('settings', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('organizations_app_id_slug_key', ['app_id', 'slug'])
    .addUniqueConstraint('organizations_app_id_id_key', ['app_id', 'id'])
    .execute();

  await db.schema
    .createTable('organization_members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('roles', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('organization_members_app_id_organization_id_user_id_key', [
      'app_id',
      'organization_id',
      'user_id',
    ])
    .addForeignKeyConstraint(
      'organization_members_organization_fkey',
      ['app_id', 'organization_id'],
      'organizations',
      ['app_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .addForeignKeyConstraint(
      'organization_members_user_fkey',
      ['app_id', 'user_id'],
      'users',
      ['app_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // A user's organizations (GET /v1/organizations?user_id=…).
  await db.schema
    .createIndex('organization_members_app_id_user_id_idx')
    .on('organization_members')
    .columns(['app_id', 'user_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('organization_members').execute();
  await db.schema.dropTable('organizations').execute();
}
