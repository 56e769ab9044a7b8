import type { DeviceFingerprint } from '../shared/device-fingerprint.js';
import type { DeviceRequirement } from '../shared/device-match.js';

/** `password_reset`: a password-auth reset link, whose token is hashed for that purpose alone. */
export type MagicLinkKind = 'login' | 'signup' | 'password_reset';

export interface MagicLinkRecord {
  id: string;
  app_id: string;
  user_id: string;
  email_id: string;
  /** Keyed hash of the token in the link; the token itself is never stored. */
  token_hash: string;
  kind: MagicLinkKind;
  expires_at: number;
  used_at: number | null;
  /** Failed uses (a device that did not match) counted against this link. */
  attempts: number;
  device_fingerprint: DeviceFingerprint | null;
  created_at: number;
}

export type MagicLinkConsumeFailure =
  | 'not_found'
  | 'used'
  | 'too_many_attempts'
  | 'expired'
  | 'device_mismatch';

export interface MagicLinkRepo {
  insert(link: MagicLinkRecord): Promise<void>;
  /**
   * Atomically: if the App has a link with `tokenHash` that is unused, has fewer than
   * `maxAttempts` failed uses, is unexpired at `now` and its requester's device meets `device`,
   * mark it used at `now` and return it; otherwise say why, the first that holds of:
   * `not_found`, `used`, `too_many_attempts`, `expired`, `device_mismatch` (which counts one
   * failed use and leaves the link unspent). Of any number of concurrent callers, exactly one
   * gets `ok`.
   */
  consume(
    appId: string,
    tokenHash: string,
    now: number,
    maxAttempts: number,
    device: DeviceRequirement,
  ): Promise<{ ok: true; link: MagicLinkRecord } | { ok: false; reason: MagicLinkConsumeFailure }>;
  /** Deletes every link sent to an email (the email was removed). */
  deleteByEmail(appId: string, emailId: string): Promise<void>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    magicLinks: MagicLinkRepo;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    magic: true;
  }
}
