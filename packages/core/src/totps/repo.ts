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
  /** Wrong codes since the last success or lock-out. */
  failed_attempts: number;
  locked_until: number | null;
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
   * Atomically records `step` as used when it is later than the last used step; clears failed
   * attempts. False when the step (or a later one) was already used: a replay.
   */
  useStep(appId: string, totpId: string, step: number): Promise<boolean>;
  /**
   * Atomically counts one wrong code; at `maxFailures` locks the TOTP until `now + lockSeconds`
   * and starts counting again. Returns the updated record (null when it does not exist).
   */
  recordFailure(
    appId: string,
    totpId: string,
    now: number,
    maxFailures: number,
    lockSeconds: number,
  ): Promise<TotpRecord | null>;
  /** Atomically marks an unused recovery code of the user's TOTP used; why not otherwise. */
  consumeRecoveryCode(
    appId: string,
    totpId: string,
    codeHash: string,
    now: number,
  ): Promise<{ ok: true } | { ok: false; reason: 'not_found' | 'used' }>;
  /** Deletes the TOTP and its recovery codes; returns it, or null when there was none. */
  delete(appId: string, totpId: string): Promise<TotpRecord | null>;
}
