export type WebAuthnCeremony = 'registration' | 'authentication';

export type UserVerificationRequirement = 'required' | 'preferred' | 'discouraged';

export type AuthenticatorType = 'platform' | 'cross-platform';

/** A passkey or security key registered to a user, for one relying-party id (domain). */
export interface WebAuthnCredentialRecord {
  /** Our id, `webauthn_…`: the `webauthn_credential_id` of the API. */
  id: string;
  app_id: string;
  user_id: string;
  /** The authenticator's credential id, base64url; unique within an App. */
  credential_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  /** The last signature counter seen; 0 for authenticators that never count. */
  sign_count: number;
  transports: string[];
  /** The authenticator model's AAGUID (all zeros when it does not say). */
  aaguid: string;
  /** The relying-party id (domain) the credential is scoped to. */
  rp_id: string;
  authenticator_type: AuthenticatorType | null;
  /** Whether the credential may be synced to other devices, and whether it is. */
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: boolean;
  /** A label the host gave it ("MacBook Touch ID"); null when none. */
  name: string | null;
  created_at: number;
  last_used_at: number | null;
}

/** One begin call's challenge: single use, until `expires_at` (the options' timeout). */
export interface WebAuthnChallengeRecord {
  id: string;
  app_id: string;
  /** Keyed hash of the challenge, which arrives back inside clientDataJSON. */
  challenge_hash: string;
  ceremony: WebAuthnCeremony;
  /** The user it was issued for; null for a discoverable sign-in (any user's passkey). */
  user_id: string | null;
  rp_id: string;
  user_verification: UserVerificationRequirement;
  /** The authenticator attachment asked for at registration; null for sign-in. */
  authenticator_type: AuthenticatorType | null;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export type WebAuthnChallengeConsumeFailure = 'not_found' | 'used' | 'expired';

export type WebAuthnRecordUseResult = 'ok' | 'counter_regression' | 'not_found';

export interface WebAuthnRepo {
  insertChallenge(challenge: WebAuthnChallengeRecord): Promise<void>;
  /**
   * Atomically: if the App has a `ceremony` challenge with `challengeHash` that is unused and
   * unexpired at `now`, mark it used at `now` and return it; otherwise say why (`not_found`,
   * then `used`, then `expired`). Of any number of concurrent callers, exactly one gets `ok`.
   */
  consumeChallenge(
    appId: string,
    challengeHash: string,
    ceremony: WebAuthnCeremony,
    now: number,
  ): Promise<
    { ok: true; challenge: WebAuthnChallengeRecord } | { ok: false; reason: WebAuthnChallengeConsumeFailure }
  >;
  /** Deletes the App's challenges that expired before `before` (used or not). */
  deleteExpiredChallenges(appId: string, before: number): Promise<void>;
  /**
   * Inserts unless the App already has a credential with this `credential_id`; never throws for
   * that case. Atomic: of concurrent inserts of one credential id, exactly one gets `inserted`.
   */
  insertCredential(credential: WebAuthnCredentialRecord): Promise<{ inserted: boolean }>;
  get(appId: string, id: string): Promise<WebAuthnCredentialRecord | null>;
  findByCredentialId(appId: string, credentialId: string): Promise<WebAuthnCredentialRecord | null>;
  /** The user's credentials, oldest first. */
  listByUser(appId: string, userId: string): Promise<WebAuthnCredentialRecord[]>;
  /**
   * Atomically, after a verified signature: when `signCount` is greater than the stored
   * counter, or both are 0 (an authenticator that never counts), stores `signCount` and sets
   * `last_used_at` to `now` (`ok`). Otherwise changes nothing: `counter_regression`, the
   * WebAuthn spec's sign of a cloned authenticator. Of concurrent callers with the same
   * non-zero count, exactly one gets `ok`.
   */
  recordUse(appId: string, id: string, signCount: number, now: number): Promise<WebAuthnRecordUseResult>;
  /** Deletes and returns the credential, or null when there was none. */
  delete(appId: string, id: string): Promise<WebAuthnCredentialRecord | null>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    webauthn: WebAuthnRepo;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    webauthn: true;
  }
}
