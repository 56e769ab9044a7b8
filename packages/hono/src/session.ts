import {
  type CookieSite,
  clearedSessionCookies,
  cookieSite,
  type HostRequest,
  type HostSessionOptions,
  hostErrorBody,
  hostSessionResolver,
  isLatchkeyError,
  LatchkeyError,
  type LatchkeySessions,
  resolveCookieOptions,
  type SessionCheck,
} from '@latchkey/core';
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export type { LatchkeySessions };

/** The variables the middleware sets: `c.var.auth` (`c.get('auth')`). */
export interface LatchkeyVariables {
  /** The signed-in session: always after `requireSession`, when one is sent after `optionalSession`. */
  auth?: SessionCheck;
}

/** A Hono env for apps that use the middleware: `new Hono<LatchkeyEnv>()`. */
export interface LatchkeyEnv {
  Variables: LatchkeyVariables;
}

export interface SessionMiddlewareOptions extends HostSessionOptions {
  /**
   * Hono sees the scheme the connection used; behind a TLS proxy that is http. `true` takes the
   * first `X-Forwarded-Proto` value instead, as Express's `trust proxy` does: set it only when
   * a proxy that overwrites that header stands in front of every request.
   */
  trustProxy?: boolean;
}

/** Answers 401 unless the request carries a live session; sets `c.var.auth`. */
export function requireSession(
  latchkey: LatchkeySessions,
  options: SessionMiddlewareOptions = {},
): MiddlewareHandler<LatchkeyEnv> {
  return sessionMiddleware(latchkey, options, true);
}

/** Sets `c.var.auth` when the request carries a live session, and carries on either way. */
export function optionalSession(
  latchkey: LatchkeySessions,
  options: SessionMiddlewareOptions = {},
): MiddlewareHandler<LatchkeyEnv> {
  return sessionMiddleware(latchkey, options, false);
}

/**
 * A handler that ends the request's session and clears the cookies
 * (`app.post('/logout', revokeSession(latchkey, { cookies: true }))`): with HttpOnly cookies,
 * page scripts cannot read the token to send it to `sessions/revoke` themselves.
 */
export function revokeSession(latchkey: LatchkeySessions, options: SessionMiddlewareOptions = {}) {
  const resolve = hostSessionResolver(latchkey, options);
  const cookies = resolveCookieOptions(options.cookies);
  return async (c: Context): Promise<Response> => {
    try {
      const { session } = await resolve(hostRequest(c, options.trustProxy), { revoking: true });
      if (session.kind === 'error') return errorAnswer(c, session.error);
      if (session.kind === 'none') return errorAnswer(c, new LatchkeyError('session_required'));
      const revoked = await latchkey.sessions.revoke(session.appId, session.credential);
      if (cookies) appendCookies(c, clearedSessionCookies(cookies, honoCookieSite(c, options.trustProxy)));
      return c.json(revoked, 200);
    } catch (err) {
      if (isLatchkeyError(err)) return errorAnswer(c, err);
      throw err;
    }
  };
}

function sessionMiddleware(
  latchkey: LatchkeySessions,
  options: SessionMiddlewareOptions,
  required: boolean,
): MiddlewareHandler<LatchkeyEnv> {
  const resolve = hostSessionResolver(latchkey, options);
  // The host name is read only for a session cookie (its names depend on it).
  const cookieHost = options.cookies ? (c: Context) => ({ hostname: urlOf(c).hostname }) : () => undefined;
  // Not async: a JWT verified before calls the host's handler with no promise of its own between.
  return (c, next) => {
    const headers = c.req.raw.headers;
    const authorization = headers.get('authorization') ?? undefined;
    // The cookie only counts without an Authorization header, and only with cookies on.
    const cookie =
      authorization === undefined && options.cookies ? (headers.get('cookie') ?? undefined) : undefined;
    // A JWT verified before: no storage, no promise before the host's handler. The URL is parsed
    // only for a cookie's names.
    const known = resolve.known(
      c.req.method,
      authorization,
      cookie,
      cookie === undefined ? undefined : cookieHost(c),
    );
    if (known !== undefined) {
      c.set('auth', known);
      return next();
    }
    return resolved(c, next);
  };

  async function resolved(c: Context<LatchkeyEnv>, next: Next): ReturnType<MiddlewareHandler<LatchkeyEnv>> {
    const { session, setCookies } = await resolve(hostRequest(c, options.trustProxy));
    appendCookies(c, setCookies);
    if (session.kind === 'session') {
      c.set('auth', session.auth);
      return next();
    }
    if (!required) return next();
    return errorAnswer(c, session.kind === 'error' ? session.error : new LatchkeyError('session_required'));
  }
}

const urlOf = (c: Context) => new URL(c.req.url);

/** The scheme the browser used, as far as this host may believe it. */
function schemeOf(c: Context, trustProxy: boolean | undefined): string {
  if (trustProxy) {
    const forwarded = c.req.raw.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
    if (forwarded === 'http' || forwarded === 'https') return forwarded;
  }
  return urlOf(c).protocol.slice(0, -1);
}

function hostRequest(c: Context, trustProxy: boolean | undefined): HostRequest {
  const headers = c.req.raw.headers;
  return {
    method: c.req.method,
    header: (name) => headers.get(name) ?? undefined,
    get origin() {
      return `${schemeOf(c, trustProxy)}://${urlOf(c).host}`;
    },
    get hostname() {
      return urlOf(c).hostname;
    },
  };
}

/** Where a session cookie goes: the host name and scheme Hono sees, and the browser's https. */
export function honoCookieSite(c: Context, trustProxy?: boolean): CookieSite {
  const headers = c.req.raw.headers;
  return cookieSite(urlOf(c).hostname, schemeOf(c, trustProxy), (name) => headers.get(name) ?? undefined);
}

export function appendCookies(c: Context, setCookies: readonly string[]): void {
  for (const value of setCookies) c.header('set-cookie', value, { append: true });
}

/** The documented error body. */
function errorAnswer(c: Context, error: LatchkeyError): Response {
  const body = hostErrorBody(error);
  return c.json(body, error.status as ContentfulStatusCode, { 'x-request-id': body.request_id });
}
