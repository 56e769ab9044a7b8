import { LatchkeyClientError } from './errors.js';

/** A PKCE pair (RFC 7636): the verifier the browser keeps, and its S256 challenge that travels. */
export interface PkcePair {
  verifier: string;
  challenge: string;
}

/** Unpadded base64url (RFC 4648 §5), as PKCE wants; btoa keeps the bundle free of a codec library. */
const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/**
 * A fresh verifier (32 random bytes, 43 base64url characters) and its challenge,
 * `BASE64URL(SHA-256(verifier))`, from WebCrypto. WebCrypto's digest exists only in a secure
 * context (https, or localhost), which is also the only place a sign-in page should be.
 */
export async function newPkcePair(): Promise<PkcePair> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle)
    throw new LatchkeyClientError({
      status: 0,
      error_type: 'pkce_unavailable',
      message:
        'WebCrypto is not available on this page (it needs https or localhost): serve the page securely, or start without PKCE.',
    });
  const verifier = base64url(globalThis.crypto.getRandomValues(new Uint8Array(32)));
  return { verifier, challenge: await pkceChallenge(verifier) };
}

/** The S256 challenge of a verifier. */
export async function pkceChallenge(verifier: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}
