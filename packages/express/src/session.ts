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
import type {
  Request as ExpressRequest,
  Response as ExpressResponse,
  NextFunction,
  RequestHandler,
} from 'express';

declare global {
  namespace Express {
    interface Request {
      /** The signed-in session, set by `requireSession` (always) and `optionalSession` (when one is sent). */
      auth?: SessionCheck;
    }
  }
}

export type { LatchkeySessions };
export type SessionMiddlewareOptions = HostSessionOptions;

/** Answers 401 unless the request carries a live session; sets `req.auth`. */
export function requireSession(
  latchkey: LatchkeySessions,
  options: SessionMiddlewareOptions = {},
): RequestHandler {
  return sessionMiddleware(latchkey, options, true);
}

/** Sets `req.auth` when the request carries a live session, and carries on either way. */
export function optionalSession(
  latchkey: LatchkeySessions,
  options: SessionMiddlewareOptions = {},
): RequestHandler {
  return sessionMiddleware(latchkey, options, false);
}

/**
 * A host route that ends the request's session (`app.post('/logout', revokeSession(latchkey,
 * { cookies: true }))`) and clears the cookies: with HttpOnly cookies, page scripts cannot read
 * the token to send it to `sessions/revoke` themselves.
 */
export function revokeSession(
  latchkey: LatchkeySessions,
  options: SessionMiddlewareOptions = {},
): RequestHandler {
  const resolve = hostSessionResolver(latchkey, options);
  const cookies = resolveCookieOptions(options.cookies);
  return (req, res, next) => {
    resolve(hostRequest(req), { revoking: true })
      .then(async ({ session }) => {
        if (session.kind === 'error') return sendError(res, session.error);
        if (session.kind === 'none') return sendError(res, new LatchkeyError('session_required'));
        const revoked = await latchkey.sessions.revoke(session.appId, session.credential);
        if (cookies) appendCookies(res, clearedSessionCookies(cookies, expressCookieSite(req)));
        res.status(200).json(revoked);
      })
      .catch((err: unknown) => (isLatchkeyError(err) ? sendError(res, err) : next(err)));
  };
}

function sessionMiddleware(latchkey: LatchkeySessions, options: SessionMiddlewareOptions, required: boolean) {
  const resolve = hostSessionResolver(latchkey, options);
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    // A JWT verified before: the host's handler runs in this same tick, no promise in between.
    const known = resolve.known(req.method, req.headers.authorization, req.headers.cookie, req);
    if (known !== undefined) {
      req.auth = known;
      next();
      return;
    }
    resolve(hostRequest(req))
      .then(({ session, setCookies }) => {
        appendCookies(res, setCookies);
        if (session.kind === 'session') {
          req.auth = session.auth;
          return next();
        }
        if (!required) return next();
        sendError(res, session.kind === 'error' ? session.error : new LatchkeyError('session_required'));
      })
      .catch(next);
  };
}

function hostRequest(req: ExpressRequest): HostRequest {
  return {
    method: req.method,
    header: (name) => firstHeader(req, name),
    // Read only when a cookie is involved: Express works both out per call (trust proxy, headers).
    get origin() {
      return `${req.protocol}://${req.get('host') ?? ''}`;
    },
    get hostname() {
      return req.hostname ?? '';
    },
  };
}

const firstHeader = (req: ExpressRequest, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** Where a session cookie goes: the host name and scheme Express sees, and the browser's https. */
export function expressCookieSite(req: ExpressRequest): CookieSite {
  return cookieSite(req.hostname ?? '', req.protocol, (name) => firstHeader(req, name));
}

export function appendCookies(res: ExpressResponse, setCookies: readonly string[]): void {
  for (const value of setCookies) res.append('Set-Cookie', value);
}

/** The documented error body. */
export function sendError(res: ExpressResponse, error: LatchkeyError): void {
  const body = hostErrorBody(error);
  res.status(error.status).set('x-request-id', body.request_id).json(body);
}
