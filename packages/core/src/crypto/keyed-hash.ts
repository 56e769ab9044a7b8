import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { toHex, utf8 } from './encoding.js';

/**
 * Keyed hashing of secrets that are looked up but never read back (API keys, session tokens,
 * passcodes, magic-link tokens, recovery codes). A database dump without the App secret
 * cannot be brute-forced offline, even for 6-digit codes.
 */
export interface KeyedHasher {
  /** Hex HMAC-SHA256 of `value` under the key for `purpose`. */
  hash(purpose: HashPurpose, value: string): string;
}

export type HashPurpose =
  | 'api_key'
  | 'session_token'
  | 'otp'
  | 'otp_code'
  | 'magic_link'
  | 'recovery_code'
  | 'nonce';

export function keyedHasher(secret: string): KeyedHasher {
  const master = utf8(secret);
  const keys = new Map<HashPurpose, Uint8Array>();
  const keyFor = (purpose: HashPurpose) => {
    let key = keys.get(purpose);
    if (!key) {
      // One key per purpose, so a hash of one kind never matches a hash of another.
      key = hkdf(sha256, master, undefined, utf8(`latchkey/keyed-hash/${purpose}`), 32);
      keys.set(purpose, key);
    }
    return key;
  };
  return { hash: (purpose, value) => toHex(hmac(sha256, keyFor(purpose), utf8(value))) };
}
