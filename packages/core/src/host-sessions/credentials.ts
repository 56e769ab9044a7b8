/**
 * How a host request carries a Latchkey session: a bearer credential or the session cookies.
 * Imports nothing but the import-free step-up rule, so edge bundles (`@latchkey/next/edge`) take it through the
 * `@latchkey/core/credentials` subpath without any server code.
 */

/**
 * The cookie names the adapters use unless told otherwise, before their prefix: `__Host-` (or
 * `__Secure-` for a cookie with a Domain or a Path other than `/`) wherever the cookies are
 * Secure, which is everywhere but a local host (`sessionCookieNames`).
 */
export const SESSION_COOKIE_NAMES = { token: 'latchkey_session', jwt: 'latchkey_session_jwt' } as const;

/** The cookie settings that decide the session cookies' names. */
export interface SessionCookieNaming {
  tokenName?: string | undefined;
  jwtName?: string | undefined;
  domain?: string | undefined;
  path?: string | undefined;
  secure?: boolean | undefined;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** A host a browser reaches over plain http in development: its cookies cannot all be Secure. */
export const isLocalHostname = (hostname: string): boolean =>
  LOCAL_HOSTS.has(hostname) || hostname.endsWith('.localhost');

/**
 * The names of the session cookies on `hostname`: the configured ones, else the defaults with the
 * prefix that a sibling subdomain cannot set (cookie tossing): `__Host-` for a host-only cookie on
 * `/`, `__Secure-` for one with a Domain or another Path. Both need the Secure attribute, so a
 * local host (plain http in development, unless `secure: true`) keeps the bare names.
 */
export function sessionCookieNames(
  naming: SessionCookieNaming,
  hostname: string,
): { token: string; jwt: string } {
  return sessionCookieNamer(naming)(hostname);
}

/**
 * `sessionCookieNames` with both possible answers worked out once: the per-request part is one
 * host name test, no string building (the adapters' session checks call it on every request).
 */
export function sessionCookieNamer(
  naming: SessionCookieNaming,
): (hostname: string) => { token: string; jwt: string } {
  const names = (prefix: string) => ({
    token: naming.tokenName ?? `${prefix}${SESSION_COOKIE_NAMES.token}`,
    jwt: naming.jwtName ?? `${prefix}${SESSION_COOKIE_NAMES.jwt}`,
  });
  const bare = names('');
  const prefixed = names(naming.domain || (naming.path ?? '/') !== '/' ? '__Secure-' : '__Host-');
  if (naming.secure !== undefined) return () => (naming.secure ? prefixed : bare);
  return (hostname) => (isLocalHostname(hostname) ? bare : prefixed);
}

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

/**
 * The session cookies of a `Cookie` header, and whether either name comes more than once: a
 * browser sends two cookies of one name when another (sub)domain or path set its own, which a
 * host must not let pick the session (cookie tossing). Empty values count as absent.
 */
export function readSessionCookies(
  header: string | null | undefined,
  names: { token: string; jwt: string },
): { token: string | undefined; jwt: string | undefined; repeated: boolean } {
  let token: string | undefined;
  let jwt: string | undefined;
  let repeated = false;
  if (header) {
    for (const part of header.split(';')) {
      const at = part.indexOf('=');
      if (at < 1) continue;
      const name = part.slice(0, at).trim();
      if (name !== names.token && name !== names.jwt) continue;
      const value = cookieValue(part.slice(at + 1));
      if (name === names.token) {
        repeated ||= token !== undefined;
        token = token ?? value;
      } else {
        repeated ||= jwt !== undefined;
        jwt = jwt ?? value;
      }
    }
  }
  return { token: token || undefined, jwt: jwt || undefined, repeated };
}

function cookieValue(raw: string): string {
  const value = raw.trim().replace(/^"(.*)"$/, '$1');
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The App a session JWT names (its `aud`), read without checking the signature: only to pick
 * the App whose keys then verify it. Undefined for anything that is not a JWT with one audience.
 */
export function jwtAudience(jwt: string): string | undefined {
  if (!looksLikeJwt(jwt)) return undefined;
  try {
    const part = jwt.slice(jwt.indexOf('.') + 1, jwt.lastIndexOf('.'));
    const base64 = part.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const { aud } = JSON.parse(new TextDecoder().decode(bytes)) as { aud?: unknown };
    const one = Array.isArray(aud) && aud.length === 1 ? aud[0] : aud;
    return typeof one === 'string' && one.length > 0 && one.length <= 100 ? one : undefined;
  } catch {
    return undefined;
  }
}

/** A `Cookie` header's cookies (no cookie parser needed); the first of a repeated name wins. */
export function parseCookies(header: string | null | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 1) continue;
    const name = part.slice(0, at).trim();
    const raw = part.slice(at + 1);
    if (cookies.has(name)) continue; // the most specific path comes first
    cookies.set(name, cookieValue(raw));
  }
  return cookies;
}

// The step-up rule, for edge checks of a session JWT's factors (import-free as this file is).
export { factorsMeetStepUp, type ProvenFactor, parseDurationSeconds } from '../shared/step-up-rule.js';
