import {
  errorBody,
  isLatchkeyError,
  type Latchkey,
  LatchkeyError,
  newRequestId,
  type SessionCheck,
  systemRandom,
} from '@latchkey/core';
import type {
  Request as ExpressRequest,
  Response as ExpressResponse,
  NextFunction,
  RequestHandler,
} from 'express';
import {
  clearSessionCookies,
  readCookies,
  resolveCookieOptions,
  type SessionCookieOptions,
  setSessionCookies,
} from './cookies.js';
import { crossSiteRefused } from './csrf.js';

declare global {
  namespace Express {
    interface Request {
      /** The signed-in session, set by `requireSession` (always) and `optionalSession` (when one is sent). */
      auth?: SessionCheck;
    }
  }
}

/** The part of a latchkey instance the session middleware needs. */
export type LatchkeySessions = Pick<Latchkey, 'sessions' | 'apps'>;

export interface SessionMiddlewareOptions {
  /** The App whose sessions are accepted; may be left out when the instance holds one App. */
  app_id?: string;
  /**
   * `jwt` (default): the JWT's signature with keys held in memory, no storage; a revoked session
   * is accepted until its JWT expires (`sessions.jwt_lifetime_seconds`, 300 s by default).
   * `token`: storage is read on each request, so revocation takes effect at once.
   */
  mode?: 'jwt' | 'token';
  /** Read (and keep fresh) the session from cookies too; off by default. */
  cookies?: boolean | SessionCookieOptions;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const APP_CACHE_MS = 5000;

/** A session JWT has three base64url parts; a session token (`lks_…`) has none. */
export const looksLikeJwt = (credential: string) => JWT_SHAPE.test(credential);

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
  const resolve = sessionResolver(latchkey, options);
  const cookies = resolveCookieOptions(options.cookies);
  return (req, res, next) => {
    resolve(req, res, { revoking: true })
      .then(async (found) => {
        if (found.kind === 'error') return sendError(res, found.error);
        if (found.kind === 'none') return sendError(res, new LatchkeyError('session_required'));
        const revoked = await latchkey.sessions.revoke(found.appId, found.credential);
        if (cookies) clearSessionCookies(req, res, cookies);
        res.status(200).json(revoked);
      })
      .catch((err: unknown) => (isLatchkeyError(err) ? sendError(res, err) : next(err)));
  };
}

function sessionMiddleware(latchkey: LatchkeySessions, options: SessionMiddlewareOptions, required: boolean) {
  const resolve = sessionResolver(latchkey, options);
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    resolve(req, res, { revoking: false })
      .then((found) => {
        if (found.kind === 'session') {
          req.auth = found.auth;
          return next();
        }
        if (!required) return next();
        sendError(res, found.kind === 'error' ? found.error : new LatchkeyError('session_required'));
      })
      .catch((err: unknown) => {
        if (!isLatchkeyError(err) || err.status >= 500) return next(err);
        if (required) sendError(res, err);
        else next();
      });
  };
}

type Credential = { session_jwt: string } | { session_token: string };
type Found =
  | { kind: 'session'; auth: SessionCheck; appId: string; credential: Credential }
  | { kind: 'none' }
  | { kind: 'error'; error: LatchkeyError };

/** Finds, checks and (cookies) refreshes the request's session. */
function sessionResolver(latchkey: LatchkeySessions, options: SessionMiddlewareOptions) {
  const mode = options.mode ?? 'jwt';
  const cookies = resolveCookieOptions(options.cookies);
  const appIdOf = singleAppId(latchkey, options.app_id);
  const originsOf = allowedOrigins(latchkey);

  return async (
    req: ExpressRequest,
    res: ExpressResponse,
    { revoking }: { revoking: boolean },
  ): Promise<Found> => {
    const appId = await appIdOf();
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== undefined) {
      const credential: Credential = looksLikeJwt(bearer)
        ? { session_jwt: bearer }
        : { session_token: bearer };
      if (revoking) return { kind: 'session', auth: placeholder(appId), appId, credential };
      const auth = await latchkey.sessions.check({ app_id: appId, mode, ...credential });
      return { kind: 'session', auth, appId, credential };
    }
    if (!cookies) return { kind: 'none' };
    const jar = readCookies(req);
    const token = jar.get(cookies.tokenName) || undefined;
    const jwt = jar.get(cookies.jwtName) || undefined;
    if (token === undefined && jwt === undefined) return { kind: 'none' };

    const refused = crossSiteRefused({
      method: req.method,
      origin: req.headers.origin,
      secFetchSite: header(req, 'sec-fetch-site'),
      ownOrigin: `${req.protocol}://${req.get('host') ?? ''}`,
      allowedOrigins: req.method === 'GET' || req.method === 'HEAD' ? [] : await originsOf(appId),
    });
    if (refused) return { kind: 'error', error: new LatchkeyError('cross_site_request') };
    if (revoking) {
      const credential: Credential =
        token !== undefined ? { session_token: token } : { session_jwt: jwt as string };
      return { kind: 'session', auth: placeholder(appId), appId, credential };
    }

    try {
      if (mode === 'jwt' && jwt !== undefined) {
        try {
          const auth = await latchkey.sessions.check({ app_id: appId, session_jwt: jwt, mode: 'jwt' });
          return { kind: 'session', auth, appId, credential: { session_jwt: jwt } };
        } catch (err) {
          // An expired JWT cookie with the token beside it: swap it for a fresh one below.
          if (token === undefined || !isLatchkeyError(err) || err.errorType !== 'invalid_session_jwt')
            throw err;
        }
      }
      if (token === undefined) {
        const auth = await latchkey.sessions.check({ app_id: appId, session_jwt: jwt as string, mode });
        return { kind: 'session', auth, appId, credential: { session_jwt: jwt as string } };
      }
      if (mode === 'token' && jwt !== undefined && !nearExpiry(jwt)) {
        const auth = await latchkey.sessions.check({ app_id: appId, session_token: token, mode });
        return { kind: 'session', auth, appId, credential: { session_token: token } };
      }
      // No JWT, or one near (or past) its expiry: authenticate by token, which hands back a fresh one.
      const fresh = await latchkey.sessions.authenticate(appId, { session_token: token });
      setSessionCookies(req, res, cookies, {
        session_jwt: fresh.session_jwt,
        expiresAt: fresh.session.expires_at,
      });
      const auth: SessionCheck = {
        app_id: appId,
        user_id: fresh.user_id,
        session_id: fresh.session.id,
        factors: fresh.session.factors,
        expires_at: fresh.session.expires_at,
      };
      return { kind: 'session', auth, appId, credential: { session_token: token } };
    } catch (err) {
      // Cookies naming no live session are dropped, so the browser stops sending them.
      if (isLatchkeyError(err) && err.status === 401) clearSessionCookies(req, res, cookies);
      throw err;
    }
  };
}

const placeholder = (appId: string): SessionCheck => ({
  app_id: appId,
  user_id: '',
  session_id: '',
  factors: [],
  expires_at: 0,
});

const header = (req: ExpressRequest, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** Less than half the JWT's lifetime left (read unverified: only to decide on a refresh). */
function nearExpiry(jwt: string): boolean {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    const { iat, exp } = payload as { iat?: unknown; exp?: unknown };
    if (typeof iat !== 'number' || typeof exp !== 'number') return true;
    return exp - Date.now() / 1000 <= (exp - iat) / 2;
  } catch {
    return true;
  }
}

/** The configured App, or the instance's only App (looked up once). */
function singleAppId(latchkey: LatchkeySessions, appId: string | undefined) {
  let found: Promise<string> | undefined;
  return (): Promise<string> => {
    if (appId !== undefined) return Promise.resolve(appId);
    found ??= latchkey.apps.list().then((apps) => {
      if (apps.length !== 1) {
        found = undefined;
        throw new Error(
          `latchkey: this instance holds ${apps.length} Apps; pass app_id to the session middleware`,
        );
      }
      return apps[0]!.id;
    });
    return found;
  };
}

/** The App's allowed browser origins (settings `cors.allowed_origins`), read at most every 5 s. */
function allowedOrigins(latchkey: LatchkeySessions) {
  const cache = new Map<string, { origins: string[]; until: number }>();
  return async (appId: string): Promise<string[]> => {
    const cached = cache.get(appId);
    if (cached && cached.until > Date.now()) return cached.origins;
    const app = await latchkey.apps.get(appId);
    const origins = app.settings.cors.allowed_origins;
    cache.set(appId, { origins, until: Date.now() + APP_CACHE_MS });
    return origins;
  };
}

/** The documented error body. */
export function sendError(res: ExpressResponse, error: LatchkeyError): void {
  const requestId = newRequestId(systemRandom);
  res.status(error.status).set('x-request-id', requestId).json(errorBody(error, requestId));
}
