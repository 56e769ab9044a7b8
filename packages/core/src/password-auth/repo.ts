import type { Storage } from '../ports/storage.js';

/** An event as storage writes it, named through the port: events/ imports this folder. */
type EventRecord = Parameters<Storage['events']['insert']>[0];

/** A user's password: one per user, stored as the hasher's PHC string (or an imported hash). */
export interface PasswordRecord {
  app_id: string;
  user_id: string;
  /** What `PasswordHasher.hash` or `storedFromImport` made; never the password. */
  hash: string;
  /** Password checks (reserved by `beginCheck`) since the last success or lock-out. */
  failed_attempts: number;
  /** Set when `failed_attempts` reaches the limit: no password is checked before this. */
  locked_until: number | null;
  created_at: number;
  updated_at: number;
}

/** How a password came to be: set by its user, or imported from another system's hash. */
export type PasswordSource = 'created' | 'imported';

/** Why a password was replaced; named in the `password.changed` event. */
export type PasswordChangeReason = 'reset_by_email' | 'reset_by_existing' | 'reset_by_session' | 'imported';

/** What `beginCheck` answers: check one password against `password`, or wait until `locked_until`. */
export type PasswordCheckTicket =
  | { granted: true; password: PasswordRecord }
  | { granted: false; locked_until: number };

export interface PasswordRepo {
  get(appId: string, userId: string): Promise<PasswordRecord | null>;
  /** Stores the user's first password; `inserted: false` (and nothing written) when it has one. */
  insert(password: PasswordRecord, source: PasswordSource): Promise<{ inserted: boolean }>;
  /** Optional: `insert` and, only when it inserted, the events it implies, in one atomic step. */
  insertWithEvents?(
    password: PasswordRecord,
    source: PasswordSource,
    events: EventRecord[],
  ): Promise<{ inserted: boolean }>;
  /**
   * Replaces the user's password hash at `now` and clears the count and lock. Returns the
   * record, or null when the user has no password.
   */
  replace(
    appId: string,
    userId: string,
    hash: string,
    now: number,
    reason: PasswordChangeReason,
  ): Promise<PasswordRecord | null>;
  /**
   * The lock-out as one atomic step, taken BEFORE the password is checked: refuses while the
   * account is locked at `now`; otherwise counts one attempt and, when that count reaches
   * `maxFailures`, locks until `now + lockSeconds` (the attempt that reaches the limit is still
   * checked). So however many attempts arrive at once, at most `maxFailures` are checked per lock
   * window. A lock that has passed starts a new count. Null when the user has no password.
   */
  beginCheck(
    appId: string,
    userId: string,
    now: number,
    maxFailures: number,
    lockSeconds: number,
  ): Promise<PasswordCheckTicket | null>;
  /**
   * After a right password: clears the count and lock and, when `rehash` is given and the stored
   * hash is still `rehash.from`, stores `rehash.to` (a concurrent change is never overwritten).
   */
  succeeded(appId: string, userId: string, now: number, rehash?: { from: string; to: string }): Promise<void>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    passwords: PasswordRepo;
  }
}
