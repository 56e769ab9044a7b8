// Built on btoa/atob rather than Node's Buffer, so the vault also runs on edge runtimes.

export function encodeBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * Decodes canonical, unpadded base64url only; anything else gives `undefined`. Strictness
 * matters for sealed blobs: a changed character (even in the unused low bits of the last one)
 * must never decode to the same bytes.
 */
export function decodeBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const bytes = binaryToBytes(atob(text.replace(/-/g, '+').replace(/_/g, '/')));
  return encodeBase64Url(bytes) === text ? bytes : undefined;
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
