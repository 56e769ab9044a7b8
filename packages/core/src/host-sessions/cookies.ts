import { isLocalHostname, sessionCookieNames } from './credentials.js';

/** Session cookies, opt-in: `cookies: true` for the defaults, or the fields to change. */
export interface SessionCookieOptions {
  /**
   * The session token's cookie; default `__Host-latchkey_session` (`__Secure-…` with a `domain`
   * or another `path`), or `latchkey_session` on a local host. Pass `latchkey_session` to keep
   * the name used before the prefixes (and give up their protection against cookie tossing).
   */
  tokenName?: string;
  /** The session JWT's cookie; default `__Host-latchkey_session_jwt`, named as `tokenName`. */
  jwtName?: string;
  domain?: string;
  /** Default `/`. */
  path?: string;
  /**
   * Default: Secure everywhere but on a local host reached over plain http (localhost,
   * 127.0.0.1, ::1, *.localhost), where the names carry no prefix.
   */
  secure?: boolean;
}

export type ResolvedCookieOptions = Pick<
  SessionCookieOptions,
  'tokenName' | 'jwtName' | 'domain' | 'secure'
> & {
  path: string;
};

/** Where the cookies go: the request's host name (without port), and whether the browser used https. */
export interface CookieSite {
  hostname: string;
  https: boolean;
}

export function resolveCookieOptions(
  option: boolean | SessionCookieOptions | undefined,
): ResolvedCookieOptions | null {
  if (!option) return null;
  const given = option === true ? {} : option;
  return {
    ...(given.tokenName === undefined ? {} : { tokenName: given.tokenName }),
    ...(given.jwtName === undefined ? {} : { jwtName: given.jwtName }),
    path: given.path ?? '/',
    ...(given.domain === undefined ? {} : { domain: given.domain }),
    ...(given.secure === undefined ? {} : { secure: given.secure }),
  };
}

/**
 * Whether the browser reached the host over https, as far as the request shows: its own scheme
 * (Express's `req.protocol`, right behind a proxy only with `trust proxy`), else an https `Origin`
 * or `Referer`, else `X-Forwarded-Proto`. Only ever adds Secure: a client claiming https
 * makes its own cookie stricter, never another's weaker.
 */
export function cookieSite(
  hostname: string,
  scheme: string,
  header: (name: string) => string | undefined,
): CookieSite {
  const https =
    scheme === 'https' ||
    (header('origin') ?? header('referer') ?? '').startsWith('https://') ||
    (header('x-forwarded-proto') ?? '').split(',')[0]?.trim().toLowerCase() === 'https';
  return { hostname, https };
}

/** One `Set-Cookie` value. */
function cookie(
  options: ResolvedCookieOptions,
  site: CookieSite,
  name: string,
  value: string,
  maxAgeSeconds: number,
): string {
  const secure = options.secure ?? (!isLocalHostname(site.hostname) || site.https);
  return [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${options.path}`,
    ...(options.domain ? [`Domain=${options.domain}`] : []),
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
    ...(secure ? ['Secure'] : []),
    'SameSite=Lax',
  ].join('; ');
}

/**
 * The `Set-Cookie` values for a session. Both cookies live as long as the session (`expiresAt`,
 * Unix seconds): a JWT cookie past its `exp` is still sent, so the adapter can swap it for a
 * fresh one.
 */
export function sessionCookies(
  options: ResolvedCookieOptions,
  site: CookieSite,
  session: { session_token?: string | undefined; session_jwt?: string | undefined; expiresAt: number },
): string[] {
  const names = sessionCookieNames(options, site.hostname);
  const maxAge = session.expiresAt - Math.floor(Date.now() / 1000);
  const set: string[] = [];
  if (session.session_token !== undefined)
    set.push(cookie(options, site, names.token, session.session_token, maxAge));
  if (session.session_jwt !== undefined)
    set.push(cookie(options, site, names.jwt, session.session_jwt, maxAge));
  return set;
}

/** The `Set-Cookie` values that make the browser drop both session cookies. */
export function clearedSessionCookies(options: ResolvedCookieOptions, site: CookieSite): string[] {
  const names = sessionCookieNames(options, site.hostname);
  return [cookie(options, site, names.token, '', 0), cookie(options, site, names.jwt, '', 0)];
}

/**
 * The cookies for a 200 answer of Latchkey's own API at `path` (relative to `/v1`'s mount):
 * set from an answer that issued or refreshed a session, cleared after a `sessions/revoke` or
 * `sessions/revoke_all` that ended the caller's own session (not after signing out another
 * device), none otherwise. For the adapters that serve the API (Express router, Next handlers).
 */
export function cookiesForApiAnswer(
  options: ResolvedCookieOptions,
  site: CookieSite,
  path: string,
  body: string,
): string[] {
  if (path === '/v1/auth/sessions/revoke')
    return body.includes('"current":false') ? [] : clearedSessionCookies(options, site);
  if (path === '/v1/auth/sessions/revoke_all')
    return body.includes('"current":true') ? clearedSessionCookies(options, site) : [];
  if (!body.includes('"session_jwt"')) return [];
  let parsed: { session_token?: unknown; session_jwt?: unknown; session?: { expires_at?: unknown } };
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  if (typeof parsed.session_jwt !== 'string' || typeof parsed.session?.expires_at !== 'number') return [];
  return sessionCookies(options, site, {
    session_jwt: parsed.session_jwt,
    ...(typeof parsed.session_token === 'string' ? { session_token: parsed.session_token } : {}),
    expiresAt: parsed.session.expires_at,
  });
}
