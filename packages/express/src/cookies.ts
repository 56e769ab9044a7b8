import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';

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
    tokenName: given.tokenName ?? 'latchkey_session',
    jwtName: given.jwtName ?? 'latchkey_session_jwt',
    path: given.path ?? '/',
    ...(given.domain === undefined ? {} : { domain: given.domain }),
    ...(given.secure === undefined ? {} : { secure: given.secure }),
  };
}

/** The request's cookies, parsed from the header (no cookie-parser needed). */
export function readCookies(req: ExpressRequest): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
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

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);
const isLocalhost = (host: string) => LOCAL_HOSTS.has(host) || host.endsWith('.localhost');

function cookie(
  req: ExpressRequest,
  options: ResolvedCookieOptions,
  name: string,
  value: string,
  maxAgeSeconds: number,
): string {
  const secure = options.secure ?? !isLocalhost(req.hostname ?? '');
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
 * Sets the session cookies. Both live as long as the session (`expiresAt`, Unix seconds): a JWT
 * cookie past its `exp` is still sent, so the middleware can swap it for a fresh one.
 */
export function setSessionCookies(
  req: ExpressRequest,
  res: ExpressResponse,
  options: ResolvedCookieOptions,
  session: { session_token?: string | undefined; session_jwt?: string | undefined; expiresAt: number },
): void {
  const maxAge = session.expiresAt - Math.floor(Date.now() / 1000);
  if (session.session_token !== undefined)
    res.append('Set-Cookie', cookie(req, options, options.tokenName, session.session_token, maxAge));
  if (session.session_jwt !== undefined)
    res.append('Set-Cookie', cookie(req, options, options.jwtName, session.session_jwt, maxAge));
}

export function clearSessionCookies(
  req: ExpressRequest,
  res: ExpressResponse,
  options: ResolvedCookieOptions,
): void {
  res.append('Set-Cookie', cookie(req, options, options.tokenName, '', 0));
  res.append('Set-Cookie', cookie(req, options, options.jwtName, '', 0));
}
