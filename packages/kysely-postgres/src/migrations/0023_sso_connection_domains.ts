import { type Kysely, sql } from 'kysely';

/**
 * The email domains SSO connections claim, one row each, so the primary key holds "a domain
 * belongs to one connection of the App" (a check in code then a write let two concurrent writes
 * claim one domain). Written with its connection in one transaction; goes with it (ON DELETE
 * CASCADE). `email_domain` at sign-in start is looked up here, so the jsonb GIN index goes.
 * Existing connections are copied in, the oldest keeping a domain two of them already claim.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sso_connection_domains')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('connection_id', 'text', (c) =>
      c.notNull().references('sso_connections.id').onDelete('cascade'),
    )
    .addPrimaryKeyConstraint('sso_connection_domains_pkey', ['app_id', 'domain'])
    .execute();
  await db.schema
    .createIndex('sso_connection_domains_connection_id_idx')
    .on('sso_connection_domains')
    .column('connection_id')
    .execute();
  // biome-ignore lint/suspicious/noExplicitAny: a migration sees the tables as they were then, untyped.
  const anyDb = db as Kysely<any>;
  await anyDb
    .insertInto('sso_connection_domains')
    .columns(['app_id', 'domain', 'connection_id'])
    .expression(
      anyDb
        .selectFrom('sso_connections')
        .select(['app_id', sql<string>`jsonb_array_elements_text(email_domains)`.as('domain'), 'id'])
        .orderBy('created_at')
        .orderBy('id'),
    )
    .onConflict((oc) => oc.columns(['app_id', 'domain']).doNothing())
    .execute();
  await db.schema.dropIndex('sso_connections_email_domains_idx').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('sso_connections_email_domains_idx')
    .on('sso_connections')
    .using('gin')
    .expression(sql`email_domains jsonb_path_ops`)
    .execute();
  await db.schema.dropTable('sso_connection_domains').execute();
}
