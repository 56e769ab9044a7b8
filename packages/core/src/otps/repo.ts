import type { EventRecord } from '../events/repo.js';
import type { DeviceFingerprint } from '../shared/device-fingerprint.js';
import type { DeviceRequirement } from '../shared/device-match.js';

export interface OtpRecord {
  id: string;
  app_id: string;
  /** The email_id or phone_number_id the code was sent to. */
  method_id: string;
  user_id: string;
  /** Keyed hash of the code; the code itself is never stored. */
  code_hash: string;
  /** Failed verifies counted against this code. */
  attempts: number;
  expires_at: number;
  used_at: number | null;
  device_fingerprint: DeviceFingerprint | null;
  created_at: number;
}

export type OtpConsumeFailure =
  | 'not_found'
  | 'expired'
  | 'used'
  | 'too_many_attempts'
  | 'mismatch'
  | 'device_mismatch';

export interface OtpRepo {
  /** Stores the new code for a method and deletes every earlier one (one code per method). */
  replace(otp: OtpRecord): Promise<void>;
  /** The method's current code, used or not; null when it has none. */
  get(appId: string, methodId: string): Promise<OtpRecord | null>;
  /**
   * Atomically: if the code for `methodId` has `codeHash`, is unexpired at `now`, unused and has
   * fewer than `maxAttempts` failed attempts, and its sender's device meets `device`, mark it
   * used at `now` and return it. Otherwise say why, the first that holds of: `not_found` (no
   * code for the method), `used`, `too_many_attempts`, `expired`, `mismatch`, `device_mismatch`;
   * the last two count one failed attempt and leave the code unspent. Of any number of
   * concurrent callers with the right code, exactly one gets `ok`.
   */
  consume(
    appId: string,
    methodId: string,
    codeHash: string,
    now: number,
    maxAttempts: number,
    device: DeviceRequirement,
  ): Promise<{ ok: true; otp: OtpRecord } | { ok: false; reason: OtpConsumeFailure }>;
  /**
   * Optional: `consume` and, in the same atomic step, the one of `events` whose `data.reason`
   * is the failure's reason (none on success or when none has it), each with its webhook
   * deliveries as EventRepo.insert writes them. Without it they are written in one transaction.
   */
  consumeWithEvents?(
    appId: string,
    methodId: string,
    codeHash: string,
    now: number,
    maxAttempts: number,
    device: DeviceRequirement,
    events: EventRecord[],
  ): Promise<{ ok: true; otp: OtpRecord } | { ok: false; reason: OtpConsumeFailure }>;
  /** Deletes every code of a method (the method was removed). */
  deleteByMethod(appId: string, methodId: string): Promise<void>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    otps: OtpRepo;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    otp: true;
  }
}
