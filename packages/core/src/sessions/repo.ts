import type { EventRecord } from '../events/repo.js';
import type { RevocationChannel, SessionRevocation } from '../ports/revocation-channel.js';
import type { DeviceFingerprint } from '../shared/device-fingerprint.js';
import type { Factor } from '../shared/factor.js';

export interface SessionRecord {
  id: string;
  app_id: string;
  user_id: string;
  /** Keyed hash of the opaque session token. */
  token_hash: string;
  started_at: number;
  expires_at: number;
  last_active_at: number;
  factors: Factor[];
  device_fingerprint: DeviceFingerprint | null;
  revoked_at: number | null;
  created_at: number;
  updated_at: number;
  /**
   * The organization the session is scoped to (`sessions/exchange`); absent or null: none. Its
   * JWT then carries the member's roles and permissions.
   */
  organization_id?: string | null;
}

/**
 * Why a session was revoked, carried by its `session.revoked` event: `user` (by its own token or
 * JWT, or by the user from another of their sessions), `admin` (the App's secret key named it or
 * its user), `password_change` (a changed or reset password ended it), `organization` (scoped to an
 * organization whose membership of its user changed or ended, or which was deleted).
 */
export type SessionRevocationReason = 'user' | 'admin' | 'password_change' | 'organization';

export interface SessionRepo {
  insert(session: SessionRecord): Promise<void>;
  /**
   * Optional: `insert` and the events it implies (each with its webhook deliveries, as
   * EventRepo.insert writes them) in one atomic step: a sign-in's session costs one round trip
   * instead of a transaction of two statements. Without it they are written in one transaction.
   */
  insertWithEvents?(session: SessionRecord, events: EventRecord[]): Promise<void>;
  get(appId: string, sessionId: string): Promise<SessionRecord | null>;
  findByTokenHash(appId: string, tokenHash: string): Promise<SessionRecord | null>;
  /**
   * The App of the session whose token hashes to `tokenHash`, in any App (null when none, or
   * when more than one App holds it): lets a host that serves several Apps take a bare session
   * token without being told its App. Token hashes are keyed hashes of 32 random bytes.
   */
  appIdByTokenHash(tokenHash: string): Promise<string | null>;
  /**
   * Atomically, on a session that is unrevoked and unexpired at `now`: sets `expires_at` to the
   * later of its current value and `expiresAt` (when given), appends `factor` (when given, in place
   * of any factor of the same `type` and `method.method_id`: one per method, the latest), and
   * sets `last_active_at` and `updated_at` to `now`. Returns the updated session, or null when
   * it is missing, revoked or expired.
   */
  touch(
    appId: string,
    sessionId: string,
    now: number,
    change: { expiresAt?: number; factor?: Factor },
  ): Promise<SessionRecord | null>;
  /**
   * Marks the session revoked at `now`; returns it, or null when missing or already revoked (so
   * of concurrent calls exactly one gets it). `reason` is for the event the write implies.
   */
  revoke(
    appId: string,
    sessionId: string,
    now: number,
    reason?: SessionRevocationReason,
  ): Promise<SessionRecord | null>;
  /**
   * Marks every unrevoked session of the user revoked at `now`, but `exceptId` (when given);
   * returns those it revoked.
   */
  revokeByUser(
    appId: string,
    userId: string,
    now: number,
    exceptId?: string,
    reason?: SessionRevocationReason,
  ): Promise<SessionRecord[]>;
  /**
   * Marks every unrevoked session scoped to the organization revoked at `now` (only `userId`'s,
   * when given); returns those it revoked.
   */
  revokeByOrganization(
    appId: string,
    organizationId: string,
    now: number,
    userId?: string,
    reason?: SessionRevocationReason,
  ): Promise<SessionRecord[]>;
  /**
   * The user's sessions that are unrevoked and unexpired at `now`, the most recently active
   * first (ties by id): what a "signed-in devices" list shows.
   */
  listLiveByUser(appId: string, userId: string, now: number): Promise<SessionRecord[]>;
  /**
   * Optional: the record of revocations, so every process can refuse a revoked session's JWTs
   * (revoked-sessions.ts). Those at or after `since` (Unix s), the App's or every App's: each
   * session revoked, and each deleted while live (its user's or App's deletion), oldest first.
   * The adapter may forget those older than `RETENTION_SECONDS`. Without it, a session JWT is
   * accepted until it expires.
   */
  revokedSince?(since: number, appId?: string): Promise<SessionRevocation[]>;
}

/** A per-App key that signs session JWTs; the private half only sealed by the KeyVault. */
export interface SigningKeyRecord {
  /** Also the JWT `kid`. */
  id: string;
  app_id: string;
  alg: 'ES256' | 'EdDSA';
  public_jwk: Record<string, unknown>;
  sealed_private_key: string;
  created_at: number;
  /** When set, the key no longer signs but still verifies until tokens it signed expire. */
  retired_at: number | null;
}

export interface SigningKeyRepo {
  /**
   * Inserts `key` unless the App already has an unretired key; returns the App's unretired key
   * either way. Atomic: concurrent callers all get the same key.
   */
  insertIfNoActive(key: SigningKeyRecord): Promise<SigningKeyRecord>;
  /** The App's unretired key, or null. */
  getActive(appId: string): Promise<SigningKeyRecord | null>;
  /** Every key of the App, newest first (for the JWKS). */
  list(appId: string): Promise<SigningKeyRecord[]>;
  /** Retires the App's active key at `now` (rotation); the next signing creates a new one. */
  retireActive(appId: string, now: number): Promise<void>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    sessions: SessionRepo;
    signingKeys: SigningKeyRepo;
    /**
     * Optional: the storage's own way of telling every process of each revocation as it is
     * written (Postgres LISTEN/NOTIFY). `createLatchkey({ revocationChannel })` takes another.
     */
    sessionRevocations?: RevocationChannel;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    session: true;
    key: true;
  }
}
