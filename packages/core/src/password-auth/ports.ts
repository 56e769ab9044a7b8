export type { PasswordHasher } from './hashing/index.js';

/**
 * Whether a password appears in a breach corpus. Adapters: the Pwned Passwords range client and
 * a local sorted hash list (password-auth/breach). Throwing makes the calling request fail; a
 * breach check that cannot answer never lets a password through unnoticed.
 */
export interface BreachedPasswords {
  isBreached(password: string): Promise<boolean>;
}
