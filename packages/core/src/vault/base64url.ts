// Built on btoa/atob rather than Node's Buffer, so the vault also runs on edge runtimes.

export function encodeBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Each character code's 6-bit value, 255 for a character outside the base64url alphabet. */
const VALUE = new Uint8Array(128).fill(255);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

const valueAt = (text: string, i: number): number => {
  const code = text.charCodeAt(i);
  return code < 128 ? VALUE[code]! : 255;
};

/**
 * Decodes canonical, unpadded base64url only; anything else gives `undefined`. Strictness
 * matters for sealed blobs: a changed character (even in the unused low bits of the last one)
 * must never decode to the same bytes. Read straight from a table: every vault open decodes four
 * parts, and `atob` plus encoding the bytes again to check the spelling cost more than the
 * AES-GCM steps they feed (a profile of `sign_message`, issue 35).
 */
export function decodeBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  const tail = text.length % 4;
  if (tail === 1) return undefined;
  const bytes = new Uint8Array(Math.floor(text.length / 4) * 3 + (tail === 0 ? 0 : tail - 1));
  let out = 0;
  let i = 0;
  for (; i + 4 <= text.length; i += 4) {
    const a = valueAt(text, i);
    const b = valueAt(text, i + 1);
    const c = valueAt(text, i + 2);
    const d = valueAt(text, i + 3);
    if ((a | b | c | d) > 63) return undefined;
    bytes[out++] = (a << 2) | (b >> 4);
    bytes[out++] = ((b & 15) << 4) | (c >> 2);
    bytes[out++] = ((c & 3) << 6) | d;
  }
  if (tail === 0) return bytes;
  const a = valueAt(text, i);
  const b = valueAt(text, i + 1);
  const c = tail === 3 ? valueAt(text, i + 2) : 0;
  if ((a | b | c) > 63) return undefined;
  // The last character's bits past the final byte must be zero: one spelling per byte string.
  if (tail === 2 ? (b & 15) !== 0 : (c & 3) !== 0) return undefined;
  bytes[out++] = (a << 2) | (b >> 4);
  if (tail === 3) bytes[out] = ((b & 15) << 4) | (c >> 2);
  return bytes;
}

/** Lenient, for keys typed into configuration: base64 or base64url, padded or not. */
export function decodeBase64Loose(text: string): Uint8Array<ArrayBuffer> | undefined {
  const normalised = text.trim().replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normalised)) return undefined;
  try {
    return binaryToBytes(atob(normalised));
  } catch {
    return undefined;
  }
}

const binaryToBytes = (binary: string): Uint8Array<ArrayBuffer> => {
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
};
