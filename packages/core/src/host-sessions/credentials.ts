/**
 * How a host request carries a Latchkey session: a bearer credential or the session cookies.
 * Imports nothing, so edge bundles (`@latchkey/next/edge`) take it through the
 * `@latchkey/core/credentials` subpath without any server code.
 */

/** The cookie names the adapters use unless told otherwise. */
export const SESSION_COOKIE_NAMES = { token: 'latchkey_session', jwt: 'latchkey_session_jwt' } as const;

export type SessionCredential = { session_jwt: string } | { session_token: string };

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** A session JWT has three base64url parts; a session token (`lks_…`) has none. */
export const looksLikeJwt = (credential: string): boolean => JWT_SHAPE.test(credential);

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The session credential in an `Authorization: Bearer …` header, told apart by shape. */
export function bearerCredential(authorization: string | null | undefined): SessionCredential | undefined {
  const bearer = bearerValue(authorization);
  if (bearer === undefined) return undefined;
  return looksLikeJwt(bearer) ? { session_jwt: bearer } : { session_token: bearer };
}

/** The JWT an `Authorization: Bearer …` header carries; undefined for no bearer or a session token. */
export function bearerJwt(authorization: string | null | undefined): string | undefined {
  const bearer = bearerValue(authorization);
  return bearer !== undefined && looksLikeJwt(bearer) ? bearer : undefined;
}

function bearerValue(authorization: string | null | undefined): string | undefined {
  return authorization ? BEARER.exec(authorization)?.[1] : undefined;
}

/** A `Cookie` header's cookies (no cookie parser needed); the first of a repeated name wins. */
export function parseCookies(header: string | null | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 1) continue;
    const name = part.slice(0, at).trim();
    const raw = part
      .slice(at + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (cookies.has(name)) continue; // the most specific path comes first
    try {
      cookies.set(name, decodeURIComponent(raw));
    } catch {
      cookies.set(name, raw);
    }
  }
  return cookies;
}
