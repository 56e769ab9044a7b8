import type { Kysely } from 'kysely';
import * as initial from './0001_initial.js';
import * as auth from './0002_auth.js';
import * as magicLinks from './0003_magic_links.js';
import * as wallets from './0004_wallets.js';
import * as totps from './0005_totps.js';
import * as webauthn from './0006_webauthn.js';
import * as walletChallenges from './0007_wallet_challenges.js';
import * as security from './0008_security.js';
import * as magicLinkAttempts from './0008b_magic_link_attempts.js';
import * as walletPolicies from './0010_wallet_policies.js';
import * as eventsWebhooks from './0011_events_webhooks.js';
import * as webhookFairness from './0012_webhook_fairness.js';
import * as sessionTokenHash from './0013_session_token_hash.js';
import * as passwords from './0014_passwords.js';
import * as walletTransactions from './0015_wallet_transactions.js';
import * as sessionRevocations from './0016_session_revocations.js';
import * as oauth from './0017_oauth.js';
import * as solanaTransactions from './0018_solana_transactions.js';
import * as organizations from './0019_organizations.js';
import * as organizationInvitations from './0020_organization_invitations.js';
import * as sessionOrganizations from './0021_session_organizations.js';
import * as ssoConnections from './0022_sso_connections.js';
import * as ssoConnectionDomains from './0023_sso_connection_domains.js';

/**
 * A migration, run against the storage's schema. `schema` (undefined: the search path) is for the
 * raw statements the builder's `withSchema` does not reach (functions, triggers).
 */
export interface LatchkeyMigration {
  up(db: Kysely<unknown>, schema: string | undefined): Promise<void>;
  down?(db: Kysely<unknown>, schema: string | undefined): Promise<void>;
}

/**
 * Every migration, in order. Listed in code rather than read from a folder so bundlers keep
 * them. To change the schema, add the next numbered file and one line here; never edit a
 * migration that has shipped.
 */
export const migrations: Record<string, LatchkeyMigration> = {
  '0001_initial': initial,
  '0002_auth': auth,
  '0003_magic_links': magicLinks,
  '0004_wallets': wallets,
  '0005_totps': totps,
  '0006_webauthn': webauthn,
  '0007_wallet_challenges': walletChallenges,
  '0008_security': security,
  '0008b_magic_link_attempts': magicLinkAttempts,
  '0010_wallet_policies': walletPolicies,
  '0011_events_webhooks': eventsWebhooks,
  '0012_webhook_fairness': webhookFairness,
  '0013_session_token_hash': sessionTokenHash,
  '0014_passwords': passwords,
  '0015_wallet_transactions': walletTransactions,
  '0016_session_revocations': sessionRevocations,
  '0017_oauth': oauth,
  '0018_solana_transactions': solanaTransactions,
  '0019_organizations': organizations,
  '0020_organization_invitations': organizationInvitations,
  '0021_session_organizations': sessionOrganizations,
  '0022_sso_connections': ssoConnections,
  '0023_sso_connection_domains': ssoConnectionDomains,
};
