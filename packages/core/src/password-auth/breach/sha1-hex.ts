import { sha1 } from '@noble/hashes/legacy.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/**
 * The password's SHA-1 as 40 upper-case hex digits: the key both breach corpora use (Pwned
 * Passwords publishes SHA-1 of the UTF-8 password, upper-case). Never stored.
 */
export const sha1Hex = (password: string): string =>
  bytesToHex(sha1(new TextEncoder().encode(password))).toUpperCase();
