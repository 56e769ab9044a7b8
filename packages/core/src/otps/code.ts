import type { KeyedHasher } from '../crypto/keyed-hash.js';

const LIMIT = 4_294_000_000; // the largest multiple of 10^6 below 2^32: keeps digits uniform

/**
 * The 6-digit passcode of one stored code, derived from its id with the App secret's keyed hash:
 * so a resend can send the code the owner already holds again instead of replacing it, while
 * only the hash of the code is stored.
 * Uniform over 000000–999999: rejection over the hash's 4-byte words, no modulo bias.
 */
export function otpCodeFor(hasher: KeyedHasher, otpId: string): string {
  const hex = hasher.hash('otp_code', otpId);
  for (let i = 0; i + 8 <= hex.length; i += 8) {
    const n = Number.parseInt(hex.slice(i, i + 8), 16);
    if (n < LIMIT) return String(n % 1_000_000).padStart(6, '0');
  }
  // Eight words all over the limit: about one in 10^29.
  return String(Number.parseInt(hex.slice(0, 8), 16) % 1_000_000).padStart(6, '0');
}
