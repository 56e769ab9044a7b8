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
  | 'password_reset'
  | 'recovery_code'
  | 'nonce'
  | 'oauth_state'
  | 'oauth_token'
  | 'invitation'
  | 'sso_state'
  | 'sso_token';

export function keyedHasher(secret: string): KeyedHasher {
  const master = utf8(secret);
  // The keyed state (key padded and run through the hash once) is made once per purpose and
  // copied per call: that halves the work of each hash, which the API key and the session token
  // pay on every request.
  const keyed = new Map<HashPurpose, ReturnType<typeof hmac.create>>();
  const keyedFor = (purpose: HashPurpose) => {
    let state = keyed.get(purpose);
    if (!state) {
      // One key per purpose, so a hash of one kind never matches a hash of another.
      state = hmac.create(
        sha256,
        hkdf(sha256, master, undefined, utf8(`latchkey/keyed-hash/${purpose}`), 32),
      );
      keyed.set(purpose, state);
    }
    return state;
  };
  return { hash: (purpose, value) => toHex(keyedFor(purpose).clone().update(utf8(value)).digest()) };
}
