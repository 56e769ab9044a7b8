import type {
  AppRecord,
  ContactRecord,
  EventRecord,
  MagicLinkRecord,
  OtpRecord,
  RecoveryCodeRecord,
  SeedRecord,
  SessionRecord,
  SigningKeyRecord,
  TotpRecord,
  UserRecord,
  WalletChallengeRecord,
  WalletPolicyRecord,
  WalletRecord,
  WalletSignatureRecord,
  WalletSpendRecord,
  WebAuthnChallengeRecord,
  WebAuthnCredentialRecord,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
} from '@latchkey/core';

/** An audit-trail entry with its insertion order (ids made in one millisecond do not sort). */
export type StoredSignature = WalletSignatureRecord & { seq: number };

/** Everything the memory Storage holds; one Map per table, keyed by id. */
export interface MemoryState {
  apps: Map<string, AppRecord>;
  users: Map<string, UserRecord>;
  emails: Map<string, ContactRecord>;
  phoneNumbers: Map<string, ContactRecord>;
  otps: Map<string, OtpRecord>;
  magicLinks: Map<string, MagicLinkRecord>;
  sessions: Map<string, SessionRecord>;
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
  events: Map<string, EventRecord>;
  webhookEndpoints: Map<string, WebhookEndpointRecord>;
  /** Keyed `event_id endpoint_id`. */
  webhookDeliveries: Map<string, WebhookDeliveryRecord>;
  webhookAttempts: Map<string, WebhookAttemptRecord>;
}

export const emptyState = (): MemoryState => ({
  apps: new Map(),
  users: new Map(),
  emails: new Map(),
  phoneNumbers: new Map(),
  otps: new Map(),
  magicLinks: new Map(),
  sessions: new Map(),
  signingKeys: new Map(),
  rateLimits: new Map(),
  wallets: new Map(),
  totps: new Map(),
  recoveryCodes: new Map(),
  seeds: new Map(),
  webauthnCredentials: new Map(),
  webauthnChallenges: new Map(),
  walletChallenges: new Map(),
  walletPolicies: new Map(),
  walletSpends: new Map(),
  walletSignatures: new Map(),
  events: new Map(),
  webhookEndpoints: new Map(),
  webhookDeliveries: new Map(),
  webhookAttempts: new Map(),
});

/** Puts `from`'s rows back into `into`, keeping the Map objects the repos hold. */
export function restoreState(into: MemoryState, from: MemoryState): void {
  for (const key of Object.keys(into) as Array<keyof MemoryState>) {
    const target = into[key] as Map<string, unknown>;
    target.clear();
    for (const [id, row] of from[key] as Map<string, unknown>) target.set(id, row);
  }
}

/** Rows leave the store as copies, so a caller's change cannot alter stored state. */
export const copy = <T>(row: T): T => structuredClone(row);
