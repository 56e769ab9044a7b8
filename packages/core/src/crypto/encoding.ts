const textEncoder = new TextEncoder();

export const utf8 = (s: string): Uint8Array => textEncoder.encode(s);

export const toBase64Url = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');

export const fromBase64Url = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64url'));

export const toHex = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

/** Constant-time equality of two byte strings (length is not secret). */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
