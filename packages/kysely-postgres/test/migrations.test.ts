import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyKysely } from '../src/index.js';
import { migrateToLatest } from '../src/index.js';
import { listedMigrations } from '../src/migrate.js';
import { pgliteDialect } from '../src/pglite-dialect.js';
import { DATABASE_URL, randomSchema } from './targets.js';

type Sql = <R = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<R[]>;

interface Database {
  sql: Sql;
  /** A Kysely on the same database, for driving the Migrator directly. */
  kysely: AnyKysely;
  /** migrateToLatest with the storage options of this backend. */
  migrate(schema: string): Promise<{ applied: string[] }>;
  close(): Promise<void>;
}

const openPglite = async (): Promise<Database> => {
  const db = await PGlite.create();
  return {
    sql: async (text, params) => (await db.query(text, params)).rows as never,
    kysely: new Kysely({ dialect: pgliteDialect(db, false) }),
    migrate: (schema) => migrateToLatest({ pglite: db, schema }),
    close: () => db.close(),
  };
};

const openPostgres = async (): Promise<Database> => {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  const schemas = new Set<string>();
  const kysely = new Kysely({ dialect: new PostgresDialect({ pool }) });
  return {
    sql: async (text, params) => (await pool.query(text, params)).rows,
    kysely,
    migrate: (schema) => {
      schemas.add(schema);
      return migrateToLatest({ pool, schema });
    },
    async close() {
      for (const schema of schemas) await pool.query(`drop schema if exists "${schema}" cascade`);
      await kysely.destroy(); // ends the pool
    },
  };
};

const ALL = [
  '0001_initial',
  '0002_auth',
  '0003_magic_links',
  '0004_wallets',
  '0005_totps',
  '0006_webauthn',
  '0007_wallet_challenges',
  '0008_security',
  '0008b_magic_link_attempts',
  '0010_wallet_policies',
  '0011_events_webhooks',
  '0012_webhook_fairness',
  '0013_session_token_hash',
  '0014_passwords',
  '0015_wallet_transactions',
  '0016_session_revocations',
  '0017_oauth',
  '0018_solana_transactions',
  '0019_organizations',
  '0020_organization_invitations',
  '0021_session_organizations',
  '0022_sso_connections',
  '0023_sso_connection_domains',
];

// "column type nullable", in table order.
const CONTACT_COLUMNS = [
  'id text NO',
  'app_id text NO',
  'user_id text NO',
  'address text NO',
  'verified_at bigint YES',
  'created_at bigint NO',
];
const COLUMNS: Record<string, string[]> = {
  apps: [
    'id text NO',
    'name text NO',
    'secret_key_hash text NO',
    'public_token_hash text NO',
    'previous_secret_key_hash text YES',
    'previous_secret_key_expires_at bigint YES',
    'settings jsonb NO',
    'created_at bigint NO',
    'updated_at bigint NO',
  ],
  users: [
    'id text NO',
    'app_id text NO',
    'name jsonb YES',
    'status text NO',
    'created_at bigint NO',
    'updated_at bigint NO',
  ],
  emails: CONTACT_COLUMNS,
  phone_numbers: CONTACT_COLUMNS,
  otps: [
    'id text NO',
    'app_id text NO',
    'method_id text NO',
    'user_id text NO',
    'code_hash text NO',
    'attempts integer NO',
    'expires_at bigint NO',
    'used_at bigint YES',
    'device_fingerprint jsonb YES',
    'created_at bigint NO',
  ],
  magic_links: [
    'id text NO',
    'app_id text NO',
    'user_id text NO',
    'email_id text NO',
    'token_hash text NO',
    'kind text NO',
    'expires_at bigint NO',
    'used_at bigint YES',
    'device_fingerprint jsonb YES',
    'created_at bigint NO',
    'attempts integer NO',
  ],
  passwords: [
    'app_id text NO',
    'user_id text NO',
    'hash text NO',
    'failed_attempts integer NO',
    'locked_until bigint YES',
    'created_at bigint NO',
    'updated_at bigint NO',
  ],
  oauth_flows: [
    'id text NO',
    'app_id text NO',
    'provider_id text NO',
    'state_hash text NO',
    'nonce text YES',
    'code_verifier text NO',
    'client_code_challenge text YES',
    'login_redirect_url text NO',
    'signup_redirect_url text NO',
    'link_user_id text YES',
    'state_expires_at bigint NO',
    'state_used_at bigint YES',
    'token_hash text YES',
    'token_expires_at bigint YES',
    'token_used_at bigint YES',
    'user_id text YES',
    'link_id text YES',
    'user_created boolean NO',
    'created_at bigint NO',
  ],
  oauth_links: [
    'id text NO',
    'app_id text NO',
    'user_id text NO',
    'provider_id text NO',
    'issuer text NO',
    'subject text NO',
    'email text YES',
    'email_verified boolean NO',
    'provider_tokens_sealed text YES',
    'created_at bigint NO',
    'updated_at bigint NO',
  ],
  organizations: [
    'id text NO',
    'app_id text NO',
    'name text NO',
    'slug text NO',
    'allowed_email_domains jsonb NO',
    'settings jsonb NO',
    'created_at bigint NO',
    'updated_at bigint NO',
  ],
  organization_invitations: [
    'id text NO',
    'app_id text NO',
    'organization_id text NO',
    'email text NO',
    'roles jsonb NO',
    'token_hash text NO',
    'expires_at bigint NO',
    'accepted_at bigint YES',
    'revoked_at bigint YES',
    'created_at bigint NO',
  ],
  organization_members: [
    'id text NO',
    'app_id text NO',
    'organization_id text NO',
    'user_id text NO',
    'roles jsonb NO',
    'created_at bigint NO',
    'updated_at bigint NO',
  ],
  sessions: [
    'id text NO',
    'app_id text NO',
    'user_id text NO',
    'token_hash text NO',
    'started_at bigint NO',
    'expires_at bigint NO',
    'last_active_at bigint NO',
    'factors jsonb NO',
    'device_fingerprint jsonb YES',
    'revoked_at bigint YES',
    'created_at bigint NO',
    'updated_at bigint NO',
    'organization_id text YES',
  ],
  session_revocations: ['session_id text NO', 'app_id text NO', 'revoked_at bigint NO'],
  sso_connections: [
    'id text NO',
    'app_id text NO',
    'organization_id text NO',
    'issuer text NO',
    'client_id text NO',
    'client_secret_sealed text NO',
    'client_secret_hint text NO',
    'scopes jsonb YES',
    'email_domains jsonb NO',
    'created_at bigint NO',
    'updated_at bigint NO',
  ],
  sso_connection_domains: ['app_id text NO', 'domain text NO', 'connection_id text NO'],
  signing_keys: [
    'id text NO',
    'app_id text NO',
    'alg text NO',
    'public_jwk jsonb NO',
    'sealed_private_key text NO',
    'created_at bigint NO',
    'retired_at bigint YES',
  ],
  rate_limits: ['key text NO', 'window_start bigint NO', 'count integer NO'],
  wallets: [
    'id text NO',
    'app_id text NO',
    'user_id text NO',
    'wallet_type text NO',
    'network text NO',
    'public_address text NO',
    'key_source text NO',
    'derivation_path text YES',
    'key_id text YES',
    'sealed_private_key text YES',
    'is_default boolean NO',
    'is_imported boolean NO',
    'is_read_only boolean NO',
    'verified boolean NO',
    'created_at bigint NO',
    'updated_at bigint NO',
  ],
  seeds: [
    'id text NO',
    'app_id text NO',
    'user_id text NO',
    'sealed_entropy text NO',
    'created_at bigint NO',
  ],
  totps: [
    'id text NO',
    'app_id text NO',
    'user_id text NO',
    'sealed_secret text NO',
    'status text NO',
    'expires_at bigint NO',
    'last_used_step bigint YES',
    'failed_attempts integer NO',
    'locked_until bigint YES',
    'verified_at bigint YES',
    'created_at bigint NO',
    'recovery_failed_attempts integer NO',
    'recovery_locked_until bigint YES',
  ],
  recovery_codes: [
    'id text NO',
    'app_id text NO',
    'user_id text NO',
    'totp_id text NO',
    'code_hash text NO',
    'used_at bigint YES',
    'created_at bigint NO',
  ],
  webauthn_credentials: [
    'id text NO',
    'app_id text NO',
    'user_id text NO',
    'credential_id text NO',
    'public_key text NO',
    'sign_count bigint NO',
    'transports jsonb NO',
    'aaguid text NO',
    'rp_id text NO',
    'authenticator_type text YES',
    'device_type text NO',
    'backed_up boolean NO',
    'name text YES',
    'created_at bigint NO',
    'last_used_at bigint YES',
  ],
  webauthn_challenges: [
    'id text NO',
    'app_id text NO',
    'user_id text YES',
    'challenge_hash text NO',
    'ceremony text NO',
    'rp_id text NO',
    'user_verification text NO',
    'authenticator_type text YES',
    'expires_at bigint NO',
    'used_at bigint YES',
    'created_at bigint NO',
  ],
  wallet_challenges: [
    'id text NO',
    'app_id text NO',
    'wallet_type text NO',
    'public_address text NO',
    'nonce text NO',
    'message text NO',
    'user_id text YES',
    'expires_at bigint NO',
    'used_at bigint YES',
    'created_at bigint NO',
  ],
  wallet_policies: [
    'id text NO',
    'app_id text NO',
    'name text NO',
    'wallet_id text YES',
    'rules jsonb NO',
    'created_at bigint NO',
    'updated_at bigint NO',
  ],
  wallet_spends: [
    'id text NO',
    'app_id text NO',
    'wallet_id text NO',
    'asset text NO',
    'amount numeric NO',
    'created_at bigint NO',
  ],
  wallet_signatures: [
    'id text NO',
    'seq bigint NO',
    'app_id text NO',
    'wallet_id text NO',
    'method text NO',
    'chain text NO',
    'payload_digest text NO',
    'decision text NO',
    'policy_id text YES',
    'rule_index integer YES',
    'rule_kind text YES',
    'error_type text YES',
    'key_kind text NO',
    'created_at bigint NO',
  ],
  wallet_transactions: [
    'id text NO',
    'seq bigint NO',
    'app_id text NO',
    'wallet_id text NO',
    'chain_id text NO',
    'nonce bigint YES',
    'kind text NO',
    'status text NO',
    'to_address text YES',
    'value numeric NO',
    'data text YES',
    'gas_limit numeric YES',
    'max_fee_per_gas numeric YES',
    'max_priority_fee_per_gas numeric YES',
    'transaction_hash text YES',
    'raw_transaction text YES',
    'replaces text YES',
    'replaced_by text YES',
    'idempotency_key text YES',
    'block_number numeric YES',
    'gas_used numeric YES',
    'effective_gas_price numeric YES',
    'fee numeric YES',
    'error text YES',
    'created_at bigint NO',
    'updated_at bigint NO',
  ],
  wallet_nonces: [
    'wallet_id text NO',
    'chain_id text NO',
    'app_id text NO',
    'next_nonce bigint NO',
    'released jsonb NO',
  ],
  events: ['id text NO', 'app_id text NO', 'type text NO', 'data jsonb NO', 'created_at bigint NO'],
  webhook_endpoints: [
    'id text NO',
    'app_id text NO',
    'url text NO',
    'event_types jsonb NO',
    'sealed_secret text NO',
    'status text NO',
    'disabled_at bigint YES',
    'created_at bigint NO',
    'consecutive_failures integer NO',
    'paused_until bigint YES',
  ],
  webhook_deliveries: [
    'event_id text NO',
    'endpoint_id text NO',
    'app_id text NO',
    'status text NO',
    'attempts integer NO',
    'next_attempt_at bigint NO',
    'lease_until bigint YES',
    'last_attempt_at bigint YES',
    'delivered_at bigint YES',
  ],
  webhook_attempts: [
    'id text NO',
    'app_id text NO',
    'event_id text NO',
    'endpoint_id text NO',
    'attempted_at bigint NO',
    'status_code integer YES',
    'error text YES',
    'duration_ms integer NO',
  ],
};

const openers = DATABASE_URL ? { pglite: openPglite, postgres: openPostgres } : { pglite: openPglite };

for (const [name, open] of Object.entries(openers)) {
  describe(`migrations on ${name}`, () => {
    let db: Database;
    const schema = randomSchema();
    let firstRun: { applied: string[] };
    // The migrations' own tables as found in the default schema before this run: a database that
    // already holds Latchkey there (another run's, a developer's) must not fail the check below.
    const ownTablesInPublic = async () =>
      (
        await db.sql<{ table_name: string }>(
          `select table_name from information_schema.tables
           where table_schema = 'public' and table_name = any($1) order by table_name`,
          [[...Object.keys(COLUMNS), 'kysely_migration', 'kysely_migration_lock']],
        )
      ).map((t) => t.table_name);
    let publicBefore: string[];

    beforeAll(async () => {
      db = await open();
      publicBefore = await ownTablesInPublic();
      firstRun = await db.migrate(schema);
    });
    afterAll(async () => {
      await db?.close();
    });

    it('applies every migration on an empty schema, then nothing when run again', async () => {
      expect(firstRun.applied).toEqual(ALL);
      expect(await db.migrate(schema)).toEqual({ applied: [] });
      const tables = await db.sql<{ table_name: string }>(
        `select table_name from information_schema.tables where table_schema = $1 order by table_name`,
        [schema],
      );
      expect(tables.map((t) => t.table_name)).toEqual(
        [...Object.keys(COLUMNS), 'kysely_migration', 'kysely_migration_lock'].sort(),
      );
      // Nothing leaks into the default schema.
      expect(await ownTablesInPublic()).toEqual(publicBefore);
    });

    it('creates the columns with their types and nullability', async () => {
      for (const [table, expected] of Object.entries(COLUMNS)) {
        const columns = await db.sql<{ c: string }>(
          `select column_name || ' ' || data_type || ' ' || is_nullable as c from information_schema.columns
           where table_schema = $1 and table_name = $2 order by ordinal_position`,
          [schema, table],
        );
        expect(
          columns.map((r) => r.c),
          table,
        ).toEqual(expected);
      }
    });

    it('has the unique and primary keys the atomic methods rely on', async () => {
      const constraints = await db.sql<{ name: string; type: string; columns: string }>(
        `select tc.constraint_name as name, tc.constraint_type as type,
                string_agg(k.column_name, ',' order by k.ordinal_position) as columns
         from information_schema.table_constraints tc
         join information_schema.key_column_usage k
           on k.constraint_schema = tc.constraint_schema and k.constraint_name = tc.constraint_name
         where tc.table_schema = $1 and tc.constraint_type in ('UNIQUE', 'PRIMARY KEY')
           and tc.table_name <> 'kysely_migration' and tc.table_name <> 'kysely_migration_lock'
         group by tc.constraint_name, tc.constraint_type order by tc.constraint_name`,
        [schema],
      );
      expect(constraints.filter((c) => c.type === 'UNIQUE')).toEqual([
        { name: 'emails_app_id_address_key', type: 'UNIQUE', columns: 'app_id,address' },
        // A state names its App: unique across Apps, as OAuthRepo.takeState finds it by hash alone.
        { name: 'oauth_flows_state_hash_key', type: 'UNIQUE', columns: 'state_hash' },
        { name: 'oauth_links_app_id_issuer_subject_key', type: 'UNIQUE', columns: 'app_id,issuer,subject' },
        // An invitation's token hash is one per App: accepting finds it by hash.
        {
          name: 'organization_invitations_app_id_token_hash_key',
          type: 'UNIQUE',
          columns: 'app_id,token_hash',
        },
        // One membership per user and organization (insertMember's ON CONFLICT).
        {
          name: 'organization_members_app_id_organization_id_user_id_key',
          type: 'UNIQUE',
          columns: 'app_id,organization_id,user_id',
        },
        // Members name their organization by (app_id, id): never another App's.
        { name: 'organizations_app_id_id_key', type: 'UNIQUE', columns: 'app_id,id' },
        { name: 'organizations_app_id_slug_key', type: 'UNIQUE', columns: 'app_id,slug' },
        { name: 'otps_app_id_method_id_key', type: 'UNIQUE', columns: 'app_id,method_id' },
        { name: 'phone_numbers_app_id_address_key', type: 'UNIQUE', columns: 'app_id,address' },
        { name: 'seeds_app_id_user_id_key', type: 'UNIQUE', columns: 'app_id,user_id' },
        // One SSO connection per organization (insertConnection's ON CONFLICT).
        {
          name: 'sso_connections_app_id_organization_id_key',
          type: 'UNIQUE',
          columns: 'app_id,organization_id',
        },
        { name: 'users_app_id_id_key', type: 'UNIQUE', columns: 'app_id,id' },
        { name: 'wallet_challenges_app_id_nonce_key', type: 'UNIQUE', columns: 'app_id,nonce' },
        {
          name: 'wallets_app_id_wallet_type_public_address_key',
          type: 'UNIQUE',
          columns: 'app_id,wallet_type,public_address',
        },
        {
          name: 'webauthn_credentials_app_id_credential_id_key',
          type: 'UNIQUE',
          columns: 'app_id,credential_id',
        },
      ]);
      const primaryKeys = constraints.filter((c) => c.type === 'PRIMARY KEY').map((c) => c.columns);
      expect(primaryKeys.sort()).toEqual([
        // A domain is one SSO connection's in the App (insertConnection and updateConnection).
        'app_id,domain',
        'app_id,user_id',
        'event_id,endpoint_id',
        ...Array(28).fill('id'),
        'key,window_start',
        'session_id',
        // The nonce sequence: one row per wallet and chain, locked by every send.
        'wallet_id,chain_id',
      ]);
    });

    it('cascades deletes from users to their contacts, codes and sessions', async () => {
      const foreignKeys = await db.sql<{ name: string; rule: string }>(
        `select constraint_name as name, delete_rule as rule from information_schema.referential_constraints
         where constraint_schema = $1 order by constraint_name`,
        [schema],
      );
      expect(foreignKeys.map((f) => f.rule)).toEqual(foreignKeys.map(() => 'CASCADE'));
      expect(foreignKeys.map((f) => f.name)).toEqual(
        expect.arrayContaining([
          'emails_user_fkey',
          'phone_numbers_user_fkey',
          'otps_user_fkey',
          'sessions_user_fkey',
          'webauthn_credentials_user_fkey',
          'webauthn_challenges_user_fkey',
          'wallet_challenges_user_fkey',
          'oauth_links_user_fkey',
          'oauth_flows_user_fkey',
          'oauth_flows_link_user_fkey',
          'organization_members_user_fkey',
          'organization_members_organization_fkey',
          'organization_invitations_organization_fkey',
          'sso_connections_organization_fkey',
          'sso_connection_domains_connection_id_fkey',
        ]),
      );

      const s = `"${schema}"`;
      await db.sql(`insert into ${s}.apps values ('app_1', 'A', 'sk', 'pk', null, null, '{}', 1, 1)`);
      await db.sql(`insert into ${s}.users values ('user_1', 'app_1', null, 'active', 1, 1)`);
      await db.sql(`insert into ${s}.emails values ('email_1', 'app_1', 'user_1', 'a@example.com', null, 1)`);
      await db.sql(
        `insert into ${s}.phone_numbers values ('phone_1', 'app_1', 'user_1', '+14155550100', null, 1)`,
      );
      await db.sql(
        `insert into ${s}.otps (id, app_id, method_id, user_id, code_hash, expires_at, created_at)
         values ('otp_1', 'app_1', 'email_1', 'user_1', 'h', 9, 1)`,
      );
      await expect(
        db.sql(`insert into ${s}.emails values ('email_2', 'app_1', 'user_1', 'a@example.com', null, 1)`),
      ).rejects.toMatchObject({ code: '23505' });
      // A contact's user must be in the contact's App.
      await db.sql(`insert into ${s}.apps values ('app_2', 'B', 'sk2', 'pk2', null, null, '{}', 1, 1)`);
      await expect(
        db.sql(`insert into ${s}.emails values ('email_3', 'app_2', 'user_1', 'b@example.com', null, 1)`),
      ).rejects.toMatchObject({ code: '23503' });
      await db.sql(`delete from ${s}.users where id = 'user_1'`);
      const left = await db.sql(
        `select id from ${s}.emails union all select id from ${s}.phone_numbers union all select id from ${s}.otps`,
      );
      expect(left).toEqual([]);
    });

    it("removes a user's OAuth links and flows with the user, and an App's with the App", async () => {
      const s = `"${schema}"`;
      const flow = (id: string, app: string, user: string | null, linkUser: string | null) =>
        db.sql(
          `insert into ${s}.oauth_flows (id, app_id, provider_id, state_hash, code_verifier,
             login_redirect_url, signup_redirect_url, link_user_id, state_expires_at, user_id, created_at)
           values ($1, $2, 'google', $1, 'v', 'https://a.example', 'https://b.example', $4, 9, $3, 1)`,
          [id, app, user, linkUser],
        );
      const link = (id: string, app: string, user: string, subject: string) =>
        db.sql(
          `insert into ${s}.oauth_links (id, app_id, user_id, provider_id, issuer, subject, email_verified,
             created_at, updated_at) values ($1, $2, $3, 'google', 'https://accounts.google.com', $4, false, 1, 1)`,
          [id, app, user, subject],
        );
      const ids = async () =>
        (
          await db.sql<{ id: string }>(
            `select id from ${s}.oauth_flows union all select id from ${s}.oauth_links order by id`,
          )
        ).map((r) => r.id);
      await db.sql(`insert into ${s}.apps values ('app_o1', 'A', 'sko1', 'pko1', null, null, '{}', 1, 1)`);
      await db.sql(`insert into ${s}.apps values ('app_o2', 'B', 'sko2', 'pko2', null, null, '{}', 1, 1)`);
      for (const [user, app] of [
        ['user_o1', 'app_o1'],
        ['user_o2', 'app_o1'],
        ['user_o3', 'app_o2'],
      ])
        await db.sql(`insert into ${s}.users values ($1, $2, null, 'active', 1, 1)`, [user, app]);
      await flow('oauthflow_started', 'app_o1', null, null);
      await flow('oauthflow_linking', 'app_o1', null, 'user_o1');
      await flow('oauthflow_signed_in', 'app_o1', 'user_o1', null);
      await flow('oauthflow_other', 'app_o1', 'user_o2', null);
      await flow('oauthflow_app2', 'app_o2', 'user_o3', null);
      await link('oauthlink_1', 'app_o1', 'user_o1', 's1');
      await link('oauthlink_2', 'app_o1', 'user_o2', 's2');
      await link('oauthlink_3', 'app_o2', 'user_o3', 's1');
      // A link's or a flow's user must be in its App.
      await expect(link('oauthlink_4', 'app_o2', 'user_o1', 's4')).rejects.toMatchObject({ code: '23503' });
      await expect(flow('oauthflow_x', 'app_o2', 'user_o1', null)).rejects.toMatchObject({ code: '23503' });

      await db.sql(`delete from ${s}.users where id = 'user_o1'`);
      expect(await ids()).toEqual([
        'oauthflow_app2',
        'oauthflow_other',
        'oauthflow_started',
        'oauthlink_2',
        'oauthlink_3',
      ]);
      await db.sql(`delete from ${s}.apps where id = 'app_o1'`);
      expect(await ids()).toEqual(['oauthflow_app2', 'oauthlink_3']);
    });

    it('indexes the look-ups by key hash, by user, by token and the one active signing key', async () => {
      const indexes = await db.sql<{ indexname: string; indexdef: string }>(
        `select indexname, indexdef from pg_indexes where schemaname = $1 order by indexname`,
        [schema],
      );
      const def = (index: string) => indexes.find((i) => i.indexname === index)?.indexdef;
      expect(def('apps_secret_key_hash_idx')).toMatch(/ON \S+\.apps USING btree \(secret_key_hash\)$/);
      expect(def('apps_public_token_hash_idx')).toMatch(/\(public_token_hash\)$/);
      expect(def('apps_previous_secret_key_hash_idx')).toMatch(
        /\(previous_secret_key_hash\) WHERE \(previous_secret_key_hash IS NOT NULL\)$/,
      );
      expect(def('emails_app_id_user_id_idx')).toMatch(/\(app_id, user_id\)$/);
      expect(def('phone_numbers_app_id_user_id_idx')).toMatch(/\(app_id, user_id\)$/);
      expect(def('emails_app_id_address_key')).toMatch(/UNIQUE INDEX .*\(app_id, address\)$/);
      expect(def('sessions_app_id_token_hash_idx')).toMatch(/\(app_id, token_hash\)$/);
      expect(def('sessions_token_hash_idx')).toMatch(/ON \S+\.sessions USING btree \(token_hash\)$/);
      expect(def('sessions_app_id_user_id_idx')).toMatch(/\(app_id, user_id\)$/);
      expect(def('sessions_app_id_organization_id_idx')).toMatch(
        /\(app_id, organization_id, user_id\) WHERE \(organization_id IS NOT NULL\)$/,
      );
      expect(def('signing_keys_one_active_idx')).toMatch(
        /UNIQUE INDEX .*\(app_id\) WHERE \(retired_at IS NULL\)$/,
      );
      expect(def('rate_limits_window_start_idx')).toMatch(/\(window_start\)$/);
      expect(def('session_revocations_revoked_at_idx')).toMatch(/\(revoked_at\)$/);
      expect(def('magic_links_app_id_token_hash_idx')).toMatch(/\(app_id, token_hash\)$/);
      expect(def('magic_links_app_id_email_id_idx')).toMatch(/\(app_id, email_id\)$/);
      expect(def('wallets_one_default_idx')).toMatch(
        /UNIQUE INDEX .*\(app_id, user_id, wallet_type\) WHERE \(is_default = true\)$/,
      );
      expect(def('totps_one_active_idx')).toMatch(
        /UNIQUE INDEX .*\(app_id, user_id\) WHERE \(status = 'active'::text\)$/,
      );
      expect(def('recovery_codes_totp_id_code_hash_idx')).toMatch(/\(totp_id, code_hash\)$/);
      expect(def('wallets_app_id_user_id_id_idx')).toMatch(/\(app_id, user_id, id\)$/);
      expect(def('webauthn_credentials_app_id_user_id_idx')).toMatch(/\(app_id, user_id\)$/);
      expect(def('webauthn_challenges_app_id_challenge_hash_idx')).toMatch(/\(app_id, challenge_hash\)$/);
      expect(def('webauthn_challenges_app_id_expires_at_idx')).toMatch(/\(app_id, expires_at\)$/);
      expect(def('wallet_challenges_latest_idx')).toMatch(
        /\(app_id, wallet_type, public_address, created_at, id\)$/,
      );
      expect(def('wallet_challenges_app_id_expires_at_idx')).toMatch(/\(app_id, expires_at\)$/);
      expect(def('wallet_policies_app_id_wallet_id_idx')).toMatch(/\(app_id, wallet_id\)$/);
      expect(def('wallet_spends_wallet_asset_created_at_idx')).toMatch(/\(wallet_id, asset, created_at\)$/);
      expect(def('wallet_signatures_app_id_wallet_id_seq_idx')).toMatch(/\(app_id, wallet_id, seq\)$/);
      expect(def('wallet_transactions_app_id_wallet_id_seq_idx')).toMatch(/\(app_id, wallet_id, seq\)$/);
      expect(def('oauth_flows_app_id_token_hash_idx')).toMatch(
        /UNIQUE INDEX .*\(app_id, token_hash\) WHERE \(token_hash IS NOT NULL\)$/,
      );
      expect(def('oauth_flows_state_expires_at_idx')).toMatch(/\(state_expires_at\)$/);
      expect(def('oauth_links_app_id_user_id_idx')).toMatch(/\(app_id, user_id\)$/);
      expect(def('wallet_transactions_idempotency_key_idx')).toMatch(
        /UNIQUE INDEX .*\(app_id, wallet_id, idempotency_key\) WHERE \(idempotency_key IS NOT NULL\)$/,
      );
      expect(def('webhook_deliveries_endpoint_due_idx')).toMatch(
        /\(endpoint_id, next_attempt_at, event_id\) WHERE \(status = 'pending'::text\)$/,
      );
      expect(def('webhook_deliveries_leased_idx')).toMatch(
        /\(endpoint_id, app_id\) WHERE \(lease_until IS NOT NULL\)$/,
      );
      // Wallet pages go by id: byte order, whatever the database's default collation.
      const [walletId] = await db.sql<{ collation_name: string }>(
        `select collation_name from information_schema.columns
         where table_schema = $1 and table_name = 'wallets' and column_name = 'id'`,
        [schema],
      );
      expect(walletId?.collation_name).toBe('C');
    });

    it('upgrades a schema at an older version, keeping its rows', async () => {
      const old = randomSchema();
      const migrator = new Migrator({
        db: db.kysely,
        provider: listedMigrations(old),
        migrationTableSchema: old,
      });
      const first = await migrator.migrateTo('0001_initial');
      expect(first.error).toBeUndefined();
      await db.sql(`insert into "${old}".apps values ('app_old', 'Old', 'sk', 'pk', null, null, '{}', 1, 1)`);

      expect(await migrateToLatest(db.kysely, { schema: old })).toEqual({ applied: ALL.slice(1) });
      expect(await db.sql(`select id from "${old}".apps`)).toEqual([{ id: 'app_old' }]);
      expect(await db.sql(`select count(*)::int as n from "${old}".sessions`)).toEqual([{ n: 0 }]);
      await db.sql(`drop schema "${old}" cascade`);
    });

    it('0023 copies the domains connections claim (the oldest keeps a shared one), and goes down again', async () => {
      const old = randomSchema();
      const migrator = new Migrator({
        db: db.kysely,
        provider: listedMigrations(old),
        migrationTableSchema: old,
      });
      expect((await migrator.migrateTo('0022_sso_connections')).error).toBeUndefined();
      const s = `"${old}"`;
      await db.sql(`insert into ${s}.apps values ('app_1', 'A', 'sk', 'pk', null, null, '{}', 1, 1)`);
      for (const [org, connection, domains, at] of [
        ['org_b', 'ssoconn_b', '["shared.com", "b.com"]', 2],
        ['org_a', 'ssoconn_a', '["a.com", "shared.com"]', 1],
      ] as const) {
        await db.sql(
          `insert into ${s}.organizations
             (id, app_id, name, slug, allowed_email_domains, settings, created_at, updated_at)
           values ($1, 'app_1', 'O', $1, '[]', '{}', 1, 1)`,
          [org],
        );
        await db.sql(
          `insert into ${s}.sso_connections values ($1, 'app_1', $2, 'https://i', 'c', 's', 'h', null, $3, $4, $4)`,
          [connection, org, domains, at],
        );
      }
      expect((await migrator.migrateTo('0023_sso_connection_domains')).error).toBeUndefined();
      expect(
        await db.sql(`select domain, connection_id from ${s}.sso_connection_domains order by domain`),
      ).toEqual([
        { domain: 'a.com', connection_id: 'ssoconn_a' },
        { domain: 'b.com', connection_id: 'ssoconn_b' },
        { domain: 'shared.com', connection_id: 'ssoconn_a' },
      ]);
      await db.sql(`delete from ${s}.organizations where id = 'org_a'`);
      expect(await db.sql(`select domain from ${s}.sso_connection_domains order by domain`)).toEqual([
        { domain: 'b.com' },
      ]);
      expect((await migrator.migrateTo('0022_sso_connections')).error).toBeUndefined();
      expect(await db.sql(`select to_regclass($1) as t`, [`${s}.sso_connection_domains`])).toEqual([
        { t: null },
      ]);
      await db.sql(`drop schema ${s} cascade`);
    });

    it('takes 0016 down again: no revocation table, trigger or function left', async () => {
      const down = randomSchema();
      await db.migrate(down);
      const migrator = new Migrator({
        db: db.kysely,
        provider: listedMigrations(down),
        migrationTableSchema: down,
      });
      const { error } = await migrator.migrateTo('0015_wallet_transactions');
      expect(error).toBeUndefined();
      const left = await db.sql(
        `select 'table' as kind from pg_class where relnamespace = $1::regnamespace and relname = 'session_revocations'
         union all select 'trigger' from pg_trigger where tgrelid = to_regclass($2) and not tgisinternal
         union all select 'function' from pg_proc where pronamespace = $1::regnamespace`,
        [`"${down}"`, `"${down}".sessions`],
      );
      expect(left).toEqual([]);
      await db.sql(`drop schema "${down}" cascade`);
    });

    it.runIf(name === 'postgres')('lets several processes migrate one fresh schema at once', async () => {
      const fresh = randomSchema();
      const runs = await Promise.all([db.migrate(fresh), db.migrate(fresh), db.migrate(fresh)]);
      expect(runs.flatMap((r) => r.applied)).toEqual(ALL);
      const applied = await db.sql(`select name from "${fresh}".kysely_migration order by name`);
      expect(applied).toEqual(ALL.map((n) => ({ name: n })));
    });
  });
}
