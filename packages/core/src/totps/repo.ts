export interface TotpRecord {
  id: string;
  app_id: string;
  user_id: string;
  /** The shared secret, sealed by the KeyVault: it must be readable to check codes. */
  sealed_secret: string;
  status: 'pending' | 'active';
  /** A pending TOTP must be verified before this (Unix seconds) to become active. */
  expires_at: number;
  /** The highest 30-second step a code was accepted for; that step and earlier ones are refused. */
  last_used_step: number | null;
  /**
   * TOTP codes checked (reserved by `beginCodeCheck`) since the last success or lock-out, for
   * sign-in and for activation alike.
   */
  failed_attempts: number;
  /** Set when `failed_attempts` reaches the limit: no code is checked before this. */
  locked_until: number | null;
  /** Wrong recovery codes since the last success or lock-out: their own count and lock. */
  recovery_failed_attempts: number;
  recovery_locked_until: number | null;
  verified_at: number | null;
  created_at: number;
}

export interface RecoveryCodeRecord {
  id: string;
  app_id: string;
  user_id: string;
  totp_id: string;
  /** Keyed hash of the code; the code itself is never stored. */
  code_hash: string;
  used_at: number | null;
  created_at: number;
}

/** What `beginCodeCheck` answers: go ahead and check one code, or wait until `locked_until`. */
export type CodeCheckTicket = { granted: true; totp: TotpRecord } | { granted: false; locked_until: number };

export type RecoveryCodeResult =
  | { ok: true }
  | { ok: false; reason: 'used' }
  | { ok: false; reason: 'locked'; locked_until: number }
  /** No such code (or TOTP); `locked_until` is set when this failure locked recovery. */
  | { ok: false; reason: 'not_found'; locked_until: number | null };

export interface TotpRepo {
  /**
   * Stores a pending TOTP with its recovery codes, replacing the user's earlier pending ones,
   * unless the user has an active TOTP (then `created: false` and nothing is written).
   */
  createPending(totp: TotpRecord, recoveryCodes: RecoveryCodeRecord[]): Promise<{ created: boolean }>;
  get(appId: string, totpId: string): Promise<TotpRecord | null>;
  /** The user's active TOTP, else their pending one, else null. */
  getForUser(appId: string, userId: string): Promise<TotpRecord | null>;
  /**
   * Atomically: makes the pending TOTP active when it is unexpired at `now` and the user has no
   * active one, recording `step` as used. Returns the activated record, or null.
   */
  activate(appId: string, totpId: string, now: number, step: number): Promise<TotpRecord | null>;
  /**
   * Atomically records `step` as used when it is later than the last used step; clears the
   * code count and lock. False when the step (or a later one) was already used: a replay.
   */
  useStep(appId: string, totpId: string, step: number): Promise<boolean>;
  /**
   * The TOTP lock-out as one atomic step, taken BEFORE a code is checked: refuses while the TOTP
   * is locked at `now`; otherwise counts one attempt and, when that count reaches `maxFailures`,
   * locks until `now + lockSeconds` (the attempt that reaches the limit is still checked). A
   * success (`useStep`, `activate`) clears the count. So however many codes arrive at once, at
   * most `maxFailures` are checked per lock window. A lock that has passed starts a new count.
   * Null when the TOTP does not exist in this App.
   */
  beginCodeCheck(
    appId: string,
    totpId: string,
    now: number,
    maxFailures: number,
    lockSeconds: number,
  ): Promise<CodeCheckTicket | null>;
  /**
   * Atomically, a recovery code of the user's TOTP, under its own lock-out (separate from TOTP
   * codes'): `locked` while the recovery lock holds; `used` for a code already used (not counted);
   * an unused code is marked used, and clears both counts and locks; any other code counts one
   * failure and, at `maxFailures`, locks recovery until `now + lockSeconds`.
   */
  consumeRecoveryCode(
    appId: string,
    totpId: string,
    codeHash: string,
    now: number,
    maxFailures: number,
    lockSeconds: number,
  ): Promise<RecoveryCodeResult>;
  /** Deletes the TOTP and its recovery codes; returns it, or null when there was none. */
  delete(appId: string, totpId: string): Promise<TotpRecord | null>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    totps: TotpRepo;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    totp: true;
  }
}
