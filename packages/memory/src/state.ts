import type {
  AppRecord,
  ContactRecord,
  EventRecord,
  MagicLinkRecord,
  OAuthFlowRecord,
  OAuthLinkRecord,
  OrganizationInvitationRecord,
  OrganizationMemberRecord,
  OrganizationRecord,
  OtpRecord,
  PasswordRecord,
  RecoveryCodeRecord,
  SeedRecord,
  SessionRecord,
  SessionRevocation,
  SigningKeyRecord,
  SsoConnectionRecord,
  TotpRecord,
  UserRecord,
  WalletChallengeRecord,
  WalletPolicyRecord,
  WalletRecord,
  WalletSignatureRecord,
  WalletSpendRecord,
  WalletTransactionRecord,
  WebAuthnChallengeRecord,
  WebAuthnCredentialRecord,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
} from '@latchkey/core';
import { type Journal, journaledMap } from './journal.js';

/**
 * An audit-trail entry with its insertion order (ids made in one millisecond do not sort) and
 * the id of the same wallet's entry before it.
 */
export type StoredSignature = WalletSignatureRecord & { seq: number; prev: string | null };

/** Everything the memory Storage holds; one Map per table, keyed by id. */
export interface MemoryState {
  apps: Map<string, AppRecord>;
  users: Map<string, UserRecord>;
  emails: Map<string, ContactRecord>;
  phoneNumbers: Map<string, ContactRecord>;
  otps: Map<string, OtpRecord>;
  magicLinks: Map<string, MagicLinkRecord>;
  /** Keyed `app_id user_id`. */
  passwords: Map<string, PasswordRecord>;
  oauthFlows: Map<string, OAuthFlowRecord>;
  oauthLinks: Map<string, OAuthLinkRecord>;
  organizations: Map<string, OrganizationRecord>;
  organizationMembers: Map<string, OrganizationMemberRecord>;
  organizationInvitations: Map<string, OrganizationInvitationRecord>;
  ssoConnections: Map<string, SsoConnectionRecord>;
  sessions: Map<string, SessionRecord>;
  /** Revoked sessions by id: the record every Latchkey on this storage catches up from. */
  sessionRevocations: Map<string, SessionRevocation>;
  signingKeys: Map<string, SigningKeyRecord>;
  rateLimits: Map<string, { windowStart: number; count: number }>;
  wallets: Map<string, WalletRecord>;
  totps: Map<string, TotpRecord>;
  recoveryCodes: Map<string, RecoveryCodeRecord>;
  seeds: Map<string, SeedRecord>;
  webauthnCredentials: Map<string, WebAuthnCredentialRecord>;
  webauthnChallenges: Map<string, WebAuthnChallengeRecord>;
  walletChallenges: Map<string, WalletChallengeRecord>;
  walletPolicies: Map<string, WalletPolicyRecord>;
  walletSpends: Map<string, WalletSpendRecord>;
  walletSignatures: Map<string, StoredSignature>;
  /** Sent transactions, with their insertion order (ids made in one millisecond do not sort). */
  walletTransactions: Map<string, WalletTransactionRecord & { seq: number }>;
  /** `app_id wallet_id chain_id` → the wallet's nonce sequence on that chain. */
  walletNonces: Map<string, { next: number; released: number[] }>;
  /** Indexes, kept by their repos so lookups do not scan the table. */
  index: {
    /** `app_id user_id wallet_type` → the default wallet's id. */
    walletDefaults: Map<string, { id: string }>;
    /** `app_id wallet_type public_address` → the wallet's id. */
    walletAddresses: Map<string, { id: string }>;
    /** `app_id user_id` → the seed's id. */
    seedsByUser: Map<string, { id: string }>;
    /** `app_id wallet_id` → the wallet's newest audit-trail entry (each links to the one before). */
    signaturesByWallet: Map<string, { id: string }>;
  };
  events: Map<string, EventRecord>;
  webhookEndpoints: Map<string, WebhookEndpointRecord>;
  /** Keyed `event_id endpoint_id`. */
  webhookDeliveries: Map<string, WebhookDeliveryRecord>;
  webhookAttempts: Map<string, WebhookAttemptRecord>;
}

/** Every table empty, each a Map a rollback of `journal`'s transaction restores. */
export function emptyState(journal: Journal): MemoryState {
  const table = <K, V extends object>() => journaledMap<K, V>(journal);
  return {
    apps: table(),
    users: table(),
    emails: table(),
    phoneNumbers: table(),
    otps: table(),
    magicLinks: table(),
    passwords: table(),
    oauthFlows: table(),
    oauthLinks: table(),
    organizations: table(),
    organizationMembers: table(),
    organizationInvitations: table(),
    ssoConnections: table(),
    sessions: table(),
    sessionRevocations: table(),
    signingKeys: table(),
    rateLimits: table(),
    wallets: table(),
    totps: table(),
    recoveryCodes: table(),
    seeds: table(),
    webauthnCredentials: table(),
    webauthnChallenges: table(),
    walletChallenges: table(),
    walletPolicies: table(),
    walletSpends: table(),
    walletSignatures: table(),
    walletTransactions: table(),
    walletNonces: table(),
    index: {
      walletDefaults: table(),
      walletAddresses: table(),
      seedsByUser: table(),
      signaturesByWallet: table(),
    },
    events: table(),
    webhookEndpoints: table(),
    webhookDeliveries: table(),
    webhookAttempts: table(),
  };
}

/** An index key from several columns (NUL cannot occur in any of them). */
export const indexKey = (...parts: string[]) => parts.join('\u0000');

/** Rows leave the store as copies, so a caller's change cannot alter stored state. */
export const copy = <T>(row: T): T => structuredClone(row);
