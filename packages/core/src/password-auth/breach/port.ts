/**
 * Whether a password appears in a breach corpus. Adapters: `pwnedPasswordsRange` (the Pwned
 * Passwords API's k-anonymity range search; opt-in, it calls out) and, on Node,
 * `breachedPasswordsFile` from `@latchkey/core/breached-passwords-file` (a sorted SHA-1 list
 * on disk, for offline deployments).
 */
export interface BreachedPasswords {
  isBreached(password: string): Promise<boolean>;
}
