import type { ColumnType, Kysely } from 'kysely';

// bigint Unix seconds: pg returns int8 as a string, PGlite as a number; rows convert with Number().
type Seconds = ColumnType<string | number | bigint, number, number>;
type NullableSeconds = ColumnType<string | number | bigint | null, number | null, number | null>;
// json(b) is written as a JSON string and usually read back parsed (a host's type parsers may differ).
type Json = ColumnType<unknown, string, string>;
type NullableJson = ColumnType<unknown, string | null, string | null>;

export interface AppsTable {
  id: string;
  name: string;
  secret_key_hash: string;
  public_token_hash: string;
  previous_secret_key_hash: string | null;
  previous_secret_key_expires_at: NullableSeconds;
  settings: Json;
  created_at: Seconds;
  updated_at: Seconds;
}

export interface UsersTable {
  id: string;
  app_id: string;
  name: NullableJson;
  status: string;
  created_at: Seconds;
  updated_at: Seconds;
}

/** `emails` and `phone_numbers` share this shape. */
export interface ContactsTable {
  id: string;
  app_id: string;
  user_id: string;
  address: string;
  verified_at: NullableSeconds;
  created_at: Seconds;
}

export interface OtpsTable {
  id: string;
  app_id: string;
  method_id: string;
  user_id: string;
  code_hash: string;
  attempts: number;
  expires_at: Seconds;
  used_at: NullableSeconds;
  device_fingerprint: NullableJson;
  created_at: Seconds;
}

export interface MagicLinksTable {
  id: string;
  app_id: string;
  user_id: string;
  email_id: string;
  token_hash: string;
  kind: string;
  expires_at: Seconds;
  used_at: NullableSeconds;
  attempts: number;
  device_fingerprint: NullableJson;
  created_at: Seconds;
}

export interface PasswordsTable {
  app_id: string;
  user_id: string;
  hash: string;
  failed_attempts: number;
  locked_until: NullableSeconds;
  created_at: Seconds;
  updated_at: Seconds;
}

export interface OAuthFlowsTable {
  id: string;
  app_id: string;
  provider_id: string;
  state_hash: string;
  nonce: string | null;
  code_verifier: string;
  client_code_challenge: string | null;
  login_redirect_url: string;
  signup_redirect_url: string;
  link_user_id: string | null;
  state_expires_at: Seconds;
  state_used_at: NullableSeconds;
  token_hash: string | null;
  token_expires_at: NullableSeconds;
  token_used_at: NullableSeconds;
  user_id: string | null;
  link_id: string | null;
  user_created: boolean;
  created_at: Seconds;
}

export interface OAuthLinksTable {
  id: string;
  app_id: string;
  user_id: string;
  provider_id: string;
  issuer: string;
  subject: string;
  email: string | null;
  email_verified: boolean;
  provider_tokens_sealed: string | null;
  created_at: Seconds;
  updated_at: Seconds;
}

export interface OrganizationsTable {
  id: string;
  app_id: string;
  name: string;
  slug: string;
  allowed_email_domains: Json;
  settings: Json;
  created_at: Seconds;
  updated_at: Seconds;
}

export interface OrganizationMembersTable {
  id: string;
  app_id: string;
  organization_id: string;
  user_id: string;
  roles: Json;
  created_at: Seconds;
  updated_at: Seconds;
}

export interface OrganizationInvitationsTable {
  id: string;
  app_id: string;
  organization_id: string;
  email: string;
  roles: Json;
  token_hash: string;
  expires_at: Seconds;
  accepted_at: Seconds | null;
  revoked_at: Seconds | null;
  created_at: Seconds;
}

export interface SsoConnectionsTable {
  id: string;
  app_id: string;
  organization_id: string;
  issuer: string;
  client_id: string;
  client_secret_sealed: string;
  client_secret_hint: string;
  scopes: NullableJson;
  email_domains: Json;
  created_at: Seconds;
  updated_at: Seconds;
}

/** One row per domain an SSO connection claims: the primary key (app_id, domain) keeps it to one. */
export interface SsoConnectionDomainsTable {
  app_id: string;
  domain: string;
  connection_id: string;
}

export interface SessionsTable {
  id: string;
  app_id: string;
  user_id: string;
  token_hash: string;
  started_at: Seconds;
  expires_at: Seconds;
  last_active_at: Seconds;
  factors: Json;
  device_fingerprint: NullableJson;
  revoked_at: NullableSeconds;
  created_at: Seconds;
  updated_at: Seconds;
  /** Migration 0021: the organization the session is scoped to, or null. */
  organization_id: string | null;
}

/** Written only by the trigger on `sessions` (migration 0016), never by the repositories. */
export interface SessionRevocationsTable {
  session_id: string;
  app_id: string;
  revoked_at: Seconds;
}

export interface SigningKeysTable {
  id: string;
  app_id: string;
  alg: string;
  public_jwk: Json;
  sealed_private_key: string;
  created_at: Seconds;
  retired_at: NullableSeconds;
}

export interface WalletsTable {
  id: string;
  app_id: string;
  user_id: string;
  wallet_type: string;
  network: string;
  public_address: string;
  key_source: string;
  derivation_path: string | null;
  key_id: string | null;
  sealed_private_key: string | null;
  is_default: boolean;
  is_imported: boolean;
  is_read_only: boolean;
  verified: boolean;
  created_at: Seconds;
  updated_at: Seconds;
}

export interface SeedsTable {
  id: string;
  app_id: string;
  user_id: string;
  sealed_entropy: string;
  created_at: Seconds;
}

export interface TotpsTable {
  id: string;
  app_id: string;
  user_id: string;
  sealed_secret: string;
  status: string;
  expires_at: Seconds;
  last_used_step: NullableSeconds;
  failed_attempts: number;
  locked_until: NullableSeconds;
  recovery_failed_attempts: number;
  recovery_locked_until: NullableSeconds;
  verified_at: NullableSeconds;
  created_at: Seconds;
}

export interface RecoveryCodesTable {
  id: string;
  app_id: string;
  user_id: string;
  totp_id: string;
  code_hash: string;
  used_at: NullableSeconds;
  created_at: Seconds;
}

export interface WebAuthnCredentialsTable {
  id: string;
  app_id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  sign_count: Seconds;
  transports: Json;
  aaguid: string;
  rp_id: string;
  authenticator_type: string | null;
  device_type: string;
  backed_up: boolean;
  name: string | null;
  created_at: Seconds;
  last_used_at: NullableSeconds;
}

export interface WebAuthnChallengesTable {
  id: string;
  app_id: string;
  user_id: string | null;
  challenge_hash: string;
  ceremony: string;
  rp_id: string;
  user_verification: string;
  authenticator_type: string | null;
  expires_at: Seconds;
  used_at: NullableSeconds;
  created_at: Seconds;
}

export interface WalletChallengesTable {
  id: string;
  app_id: string;
  wallet_type: string;
  public_address: string;
  nonce: string;
  message: string;
  user_id: string | null;
  expires_at: Seconds;
  used_at: NullableSeconds;
  created_at: Seconds;
}

export interface WalletPoliciesTable {
  id: string;
  app_id: string;
  name: string;
  wallet_id: string | null;
  rules: Json;
  created_at: Seconds;
  updated_at: Seconds;
}

/** numeric(78,0): written as a decimal string, read back as one. */
export interface WalletSpendsTable {
  id: string;
  app_id: string;
  wallet_id: string;
  asset: string;
  amount: ColumnType<string, string, string>;
  created_at: Seconds;
}

export interface WalletSignaturesTable {
  id: string;
  /** Insertion order, for newest-first pages (ids share a millisecond). */
  seq: ColumnType<string | number | bigint, never, never>;
  app_id: string;
  wallet_id: string;
  method: string;
  chain: string;
  payload_digest: string;
  decision: string;
  policy_id: string | null;
  rule_index: number | null;
  rule_kind: string | null;
  error_type: string | null;
  key_kind: string;
  created_at: Seconds;
}

type Numeric = ColumnType<string, string, string>;
type NullableNumeric = ColumnType<string | null, string | null, string | null>;

export interface WalletTransactionsTable {
  id: string;
  /** Insertion order, for newest-first pages (ids share a millisecond). */
  seq: ColumnType<string | number | bigint, never, never>;
  app_id: string;
  wallet_id: string;
  chain_id: string;
  /** Null for Solana (migration 0018), as are the gas columns and to_address of a sol_transaction. */
  nonce: ColumnType<string | number | bigint | null, number | null, number | null>;
  kind: string;
  status: string;
  to_address: string | null;
  value: Numeric;
  data: string | null;
  gas_limit: NullableNumeric;
  max_fee_per_gas: NullableNumeric;
  max_priority_fee_per_gas: NullableNumeric;
  transaction_hash: string | null;
  raw_transaction: string | null;
  replaces: string | null;
  replaced_by: string | null;
  idempotency_key: string | null;
  block_number: NullableNumeric;
  gas_used: NullableNumeric;
  effective_gas_price: NullableNumeric;
  fee: NullableNumeric;
  error: string | null;
  created_at: Seconds;
  updated_at: Seconds;
}

export interface WalletNoncesTable {
  wallet_id: string;
  chain_id: string;
  app_id: string;
  next_nonce: ColumnType<string | number | bigint, number, number>;
  released: Json;
}

export interface EventsTable {
  id: string;
  app_id: string;
  type: string;
  data: Json;
  created_at: Seconds;
}

export interface WebhookEndpointsTable {
  id: string;
  app_id: string;
  url: string;
  event_types: Json;
  sealed_secret: string;
  status: string;
  disabled_at: NullableSeconds;
  created_at: Seconds;
  consecutive_failures: number;
  paused_until: NullableSeconds;
}

export interface WebhookDeliveriesTable {
  event_id: string;
  endpoint_id: string;
  app_id: string;
  status: string;
  attempts: number;
  next_attempt_at: Seconds;
  lease_until: NullableSeconds;
  last_attempt_at: NullableSeconds;
  delivered_at: NullableSeconds;
}

export interface WebhookAttemptsTable {
  id: string;
  app_id: string;
  event_id: string;
  endpoint_id: string;
  attempted_at: Seconds;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** Fixed-window counters; `key` names what is limited, and is not scoped by App. */
export interface RateLimitsTable {
  key: string;
  window_start: Seconds;
  count: number;
}

/**
 * The tables as Kysely sees them. Columns mirror the migrations; a later migration that adds a
 * table adds its interface here too.
 */
export interface Database {
  apps: AppsTable;
  users: UsersTable;
  emails: ContactsTable;
  phone_numbers: ContactsTable;
  otps: OtpsTable;
  magic_links: MagicLinksTable;
  passwords: PasswordsTable;
  oauth_flows: OAuthFlowsTable;
  oauth_links: OAuthLinksTable;
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  organization_invitations: OrganizationInvitationsTable;
  sso_connections: SsoConnectionsTable;
  sso_connection_domains: SsoConnectionDomainsTable;
  sessions: SessionsTable;
  session_revocations: SessionRevocationsTable;
  signing_keys: SigningKeysTable;
  rate_limits: RateLimitsTable;
  wallets: WalletsTable;
  seeds: SeedsTable;
  totps: TotpsTable;
  recovery_codes: RecoveryCodesTable;
  webauthn_credentials: WebAuthnCredentialsTable;
  webauthn_challenges: WebAuthnChallengesTable;
  wallet_challenges: WalletChallengesTable;
  wallet_policies: WalletPoliciesTable;
  wallet_spends: WalletSpendsTable;
  wallet_signatures: WalletSignaturesTable;
  wallet_transactions: WalletTransactionsTable;
  wallet_nonces: WalletNoncesTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

export type LatchkeyDb = Kysely<Database>;

/**
 * A Kysely instance of any table typing, as a host app hands it in. Kysely's own APIs
 * (Dialect, Migration) use this type too.
 */
// biome-ignore lint/suspicious/noExplicitAny: a host's Kysely<HostTables> is only assignable to Kysely<any>.
export type AnyKysely = Kysely<any>;
