import { bytesToHex } from '@noble/hashes/utils.js';
import { base64urlnopad } from '@scure/base';

const textEncoder = new TextEncoder();

export const utf8 = (s: string): Uint8Array => textEncoder.encode(s);

// Web-standard only (no Buffer), so the core runs on edge runtimes too.
export const toBase64Url = (bytes: Uint8Array): string => base64urlnopad.encode(bytes);

/** Unpadded base64url; padding is tolerated. Throws on anything else. */
export const fromBase64Url = (s: string): Uint8Array => base64urlnopad.decode(s.replace(/=+$/, ''));

export const toHex = (bytes: Uint8Array): string => bytesToHex(bytes);

/** Constant-time equality of two byte strings (length is not secret). */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
