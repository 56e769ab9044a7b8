import { type Kysely, sql } from 'kysely';

/**
 * OAuth / OpenID Connect sign-in: the flows from `start` to `authenticate`, and the provider
 * identities linked to users. A flow's state is found by its hash alone (the state names the
 * App), so it is unique across Apps; its Latchkey token is unique within its App. A link is one
 * per (App, issuer, subject): insertLink's ON CONFLICT relies on it. Both go with their App, and
 * with the user they name (ON DELETE CASCADE).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_flows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('state_hash', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text')
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('client_code_challenge', 'text')
    .addColumn('login_redirect_url', 'text', (c) => c.notNull())
    .addColumn('signup_redirect_url', 'text', (c) => c.notNull())
    .addColumn('link_user_id', 'text')
    .addColumn('state_expires_at', 'bigint', (c) => c.notNull())
    .addColumn('state_used_at', 'bigint')
    .addColumn('token_hash', 'text')
    .addColumn('token_expires_at', 'bigint')
    .addColumn('token_used_at', 'bigint')
    .addColumn('user_id', 'text')
    .addColumn('link_id', 'text')
    .addColumn('user_created', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('oauth_flows_state_hash_key', ['state_hash'])
    // Null user columns are not checked (MATCH SIMPLE): a flow names a user only once known.
    .addForeignKeyConstraint(
      'oauth_flows_link_user_fkey',
      ['app_id', 'link_user_id'],
      'users',
      ['app_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .addForeignKeyConstraint(
      'oauth_flows_user_fkey',
      ['app_id', 'user_id'],
      'users',
      ['app_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // The token takeToken spends, once per App: looked up by (app_id, token_hash).
  await db.schema
    .createIndex('oauth_flows_app_id_token_hash_idx')
    .on('oauth_flows')
    .columns(['app_id', 'token_hash'])
    .unique()
    .where(sql.ref('token_hash'), 'is not', null)
    .execute();
  // A clean-up of spent and abandoned flows goes by expiry.
  await db.schema
    .createIndex('oauth_flows_state_expires_at_idx')
    .on('oauth_flows')
    .column('state_expires_at')
    .execute();

  await db.schema
    .createTable('oauth_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('email_verified', 'boolean', (c) => c.notNull())
    .addColumn('provider_tokens_sealed', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('oauth_links_app_id_issuer_subject_key', ['app_id', 'issuer', 'subject'])
    .addForeignKeyConstraint(
      'oauth_links_user_fkey',
      ['app_id', 'user_id'],
      'users',
      ['app_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('oauth_links_app_id_user_id_idx')
    .on('oauth_links')
    .columns(['app_id', 'user_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oauth_links').execute();
  await db.schema.dropTable('oauth_flows').execute();
}
