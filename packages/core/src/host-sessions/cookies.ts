import { SESSION_COOKIE_NAMES } from './credentials.js';

/** Session cookies, opt-in: `cookies: true` for the defaults, or the fields to change. */
export interface SessionCookieOptions {
  /** The session token's cookie; default `latchkey_session`. */
  tokenName?: string;
  /** The session JWT's cookie; default `latchkey_session_jwt`. */
  jwtName?: string;
  domain?: string;
  /** Default `/`. */
  path?: string;
  /** Default: Secure everywhere but on localhost (where browsers serve plain http). */
  secure?: boolean;
}

export type ResolvedCookieOptions = Required<Omit<SessionCookieOptions, 'domain' | 'secure'>> &
  Pick<SessionCookieOptions, 'domain' | 'secure'>;

export function resolveCookieOptions(
  option: boolean | SessionCookieOptions | undefined,
): ResolvedCookieOptions | null {
  if (!option) return null;
  const given = option === true ? {} : option;
  return {
    tokenName: given.tokenName ?? SESSION_COOKIE_NAMES.token,
    jwtName: given.jwtName ?? SESSION_COOKIE_NAMES.jwt,
    path: given.path ?? '/',
    ...(given.domain === undefined ? {} : { domain: given.domain }),
    ...(given.secure === undefined ? {} : { secure: given.secure }),
  };
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);
const isLocalhost = (hostname: string) => LOCAL_HOSTS.has(hostname) || hostname.endsWith('.localhost');

/** One `Set-Cookie` value; `hostname` (the request's, without port) decides Secure by default. */
function cookie(
  options: ResolvedCookieOptions,
  hostname: string,
  name: string,
  value: string,
  maxAgeSeconds: number,
): string {
  const secure = options.secure ?? !isLocalhost(hostname);
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
  hostname: string,
  session: { session_token?: string | undefined; session_jwt?: string | undefined; expiresAt: number },
): string[] {
  const maxAge = session.expiresAt - Math.floor(Date.now() / 1000);
  const set: string[] = [];
  if (session.session_token !== undefined)
    set.push(cookie(options, hostname, options.tokenName, session.session_token, maxAge));
  if (session.session_jwt !== undefined)
    set.push(cookie(options, hostname, options.jwtName, session.session_jwt, maxAge));
  return set;
}

/** The `Set-Cookie` values that make the browser drop both session cookies. */
export function clearedSessionCookies(options: ResolvedCookieOptions, hostname: string): string[] {
  return [
    cookie(options, hostname, options.tokenName, '', 0),
    cookie(options, hostname, options.jwtName, '', 0),
  ];
}

/**
 * The cookies for a 200 answer of Latchkey's own API at `path` (relative to `/v1`'s mount):
 * set from an answer that issued or refreshed a session, cleared after `sessions/revoke`,
 * none otherwise. For the adapters that serve the API (Express router, Next handlers).
 */
export function cookiesForApiAnswer(
  options: ResolvedCookieOptions,
  hostname: string,
  path: string,
  body: string,
): string[] {
  if (path === '/v1/auth/sessions/revoke') return clearedSessionCookies(options, hostname);
  if (!body.includes('"session_jwt"')) return [];
  let parsed: { session_token?: unknown; session_jwt?: unknown; session?: { expires_at?: unknown } };
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  if (typeof parsed.session_jwt !== 'string' || typeof parsed.session?.expires_at !== 'number') return [];
  return sessionCookies(options, hostname, {
    session_jwt: parsed.session_jwt,
    ...(typeof parsed.session_token === 'string' ? { session_token: parsed.session_token } : {}),
    expiresAt: parsed.session.expires_at,
  });
}
