import { isLatchkeyError, LatchkeyError } from '../errors.js';
import type { Latchkey } from '../latchkey.js';
import { consoleLogger } from '../logging/logger.js';
import { authTime } from '../sessions/auth-time.js';
import type { SessionCheck, SessionCheckMode } from '../sessions/schema.js';
import { asksStepUp, durationSeconds, type FactorType } from '../sessions/step-up.js';
import { credentialApp } from './app-of.js';
import {
  type CookieSite,
  clearedSessionCookies,
  cookieSite,
  resolveCookieOptions,
  type SessionCookieOptions,
  sessionCookies,
} from './cookies.js';
import {
  bearerCredential,
  bearerJwt,
  readSessionCookies,
  type SessionCredential,
  sessionCookieNamer,
} from './credentials.js';
import { crossSiteVerdict } from './csrf.js';
import { organizationGuard } from './organization-guard.js';
import { warnUntrustedProxy } from './proxy-warning.js';

/** The part of a latchkey instance the host session helpers need (and its logger, when it has one). */
export type LatchkeySessions = Pick<Latchkey, 'sessions' | 'apps'> & Partial<Pick<Latchkey, 'logger'>>;

/** Options shared by every adapter's session helpers (`requireSession`, `getSession`, …). */
export interface HostSessionOptions {
  /**
   * Accept only this App's sessions (another App's get the documented 401). Left out, each
   * session is checked against its own App: the one a JWT names, the one holding a token.
   */
  app_id?: string;
  /**
   * `jwt` (default): the JWT's signature with keys held in memory, no storage; a revoked session
   * is accepted until its JWT expires (`sessions.jwt_lifetime_seconds`, 300 s by default).
   * `token`: storage is read on each request, so revocation takes effect at once.
   */
  mode?: SessionCheckMode;
  /** Read (and keep fresh) the session from cookies too; off by default. */
  cookies?: boolean | SessionCookieOptions;
  /**
   * Step-up ("sudo mode"): answer 401 `step_up_required` unless a factor was proven on the session
   * within this long (seconds, or `'30s'`, `'5m'`, `'1h'`): one of `factors` when given.
   */
  freshWithin?: number | string;
  /** Step-up: answer 401 `step_up_required` unless the session holds one of these factor kinds. */
  factors?: FactorType[];
  /**
   * Answer 403 `permission_denied` unless the session is scoped to an organization
   * (`/v1/organizations/{id}/sessions/exchange`): any (`true`) or this one (its id).
   */
  organization?: boolean | string;
  /**
   * Answer 403 `permission_denied` unless the session is scoped to an organization whose member's
   * roles grant this permission (`invoices:read`; an owner's `*` grants all). In jwt mode the
   * JWT's claims answer, with no storage read; in token mode, the member's roles in storage.
   */
  permission?: string;
}

/** What an adapter tells the resolver about its request. */
export interface HostRequest {
  method: string;
  /** A request header by lower-case name. */
  header(name: string): string | undefined;
  /** The origin the request was addressed to (`https://shop.example.com`), for the CSRF check. */
  origin: string;
  /** The host name without port, for the cookies' names and Secure flag. */
  hostname: string;
}

export type HostSession =
  | { kind: 'session'; auth: SessionCheck; appId: string; credential: SessionCredential }
  | { kind: 'none' }
  | { kind: 'error'; error: LatchkeyError };

/** The outcome and the `Set-Cookie` values the adapter must send with its answer. */
export interface HostSessionResult {
  session: HostSession;
  setCookies: string[];
}

/**
 * Finds, checks and (cookies) refreshes a host request's session: a bearer credential first,
 * else the session cookies, which are refused on a cross-site state-changing request (CSRF).
 * `revoking` only finds the credential, unchecked, for a logout route to revoke. Errors a client
 * caused come back as `kind: 'error'`; anything else (storage down) throws.
 */
export function hostSessionResolver(latchkey: LatchkeySessions, options: HostSessionOptions = {}) {
  const mode = options.mode ?? 'jwt';
  const cookies = resolveCookieOptions(options.cookies);
  const appOf = credentialApp(latchkey, options.app_id);
  const namesOn = sessionCookieNamer(cookies ?? {});
  // Parsed once, so a mistyped duration fails where the middleware is made, not per request.
  const stepUp = {
    freshWithin:
      options.freshWithin === undefined ? undefined : durationSeconds(options.freshWithin, 'freshWithin'),
    factors: options.factors,
  };
  const asks = asksStepUp(stepUp);
  const inOrganization = organizationGuard(options);

  const resolveSession = async (
    request: HostRequest,
    { revoking = false } = {},
  ): Promise<HostSessionResult> => {
    const setCookies: string[] = [];
    try {
      const session = await resolve(request, revoking, setCookies);
      if (asks && !revoking && session.kind === 'session')
        latchkey.sessions.requireStepUp(session.auth, stepUp);
      if (inOrganization && !revoking && session.kind === 'session' && !inOrganization(session.auth))
        throw new LatchkeyError('permission_denied');
      return { session, setCookies };
    } catch (err) {
      if (!isLatchkeyError(err) || err.status >= 500) throw err;
      // Cookies naming no live session (or named twice) are dropped, so the browser stops sending
      // them; a session that only needs a fresher proof is alive and keeps its cookies.
      const dead =
        (err.status === 401 && err.errorType !== 'step_up_required') ||
        err.errorType === 'repeated_session_cookie';
      if (cookies && dead && usedCookies(request, namesOn(request.hostname)))
        setCookies.push(...clearedSessionCookies(cookies, siteOf(request)));
      return { session: { kind: 'error', error: err }, setCookies };
    }
  };

  /**
   * The session answered without a promise when that takes no work: in jwt mode, a JWT this
   * process verified before, sent as a bearer or (on GET and HEAD, which CSRF does not concern)
   * as the JWT cookie. Undefined means "ask `resolveSession`", which then decides as ever. Takes
   * the request's parts, not a `HostRequest`: an adapter builds nothing per request to call it
   * (building one per request, with getters holding the host's request, about doubled what the
   * garbage collector's scavenges kept alive: docs/benchmarks.md, "The host process"). `host` is
   * read only for a cookie (its names depend on the host name): Express passes `req` itself.
   */
  const known = (
    method: string,
    authorization: string | undefined,
    cookie: string | undefined,
    host?: { readonly hostname?: string | undefined },
  ): SessionCheck | undefined => {
    if (mode !== 'jwt') return undefined;
    let jwt: string | undefined;
    // The usual header, `Bearer <jwt>`, is only sliced: what follows is a key into the JWTs
    // verified before, where nothing but a JWT can match, so its shape needs no regex here.
    if (authorization !== undefined)
      jwt = authorization.startsWith('Bearer ') ? authorization.slice(7) : bearerJwt(authorization);
    else if (cookies && cookie !== undefined && (method === 'GET' || method === 'HEAD')) {
      const sent = readSessionCookies(cookie, namesOn(host?.hostname ?? ''));
      if (!sent.repeated) jwt = sent.jwt;
    }
    const auth = jwt === undefined ? undefined : latchkey.sessions.checkKnownJwt(options.app_id, jwt);
    // Refused the long way, which answers the documented 403.
    if (auth === undefined || (inOrganization && !inOrganization(auth))) return undefined;
    if (!asks) return auth;
    // A session short of the step-up goes the long way, which answers the documented 401.
    try {
      latchkey.sessions.requireStepUp(auth, stepUp);
      return auth;
    } catch {
      return undefined;
    }
  };

  return Object.assign(resolveSession, { known });

  async function resolve(
    request: HostRequest,
    revoking: boolean,
    setCookies: string[],
  ): Promise<HostSession> {
    const bearer = bearerCredential(request.header('authorization'));
    if (bearer !== undefined) {
      const appId = await appOf(bearer);
      if (revoking) return { kind: 'session', auth: placeholder(appId), appId, credential: bearer };
      const auth = await latchkey.sessions.check({ app_id: appId, mode, ...bearer });
      return { kind: 'session', auth, appId, credential: bearer };
    }
    if (!cookies) return { kind: 'none' };
    const sent = readSessionCookies(request.header('cookie'), namesOn(request.hostname));
    if (sent.repeated) throw new LatchkeyError('repeated_session_cookie');
    const { token, jwt } = sent;
    if (token === undefined && jwt === undefined) return { kind: 'none' };
    const appId = await cookieApp(token, jwt);

    const safe = request.method === 'GET' || request.method === 'HEAD';
    const verdict = crossSiteVerdict({
      method: request.method,
      origin: request.header('origin'),
      referer: request.header('referer'),
      secFetchSite: request.header('sec-fetch-site'),
      ownOrigin: request.origin,
      allowedOrigins: safe ? [] : await allowedOrigins(latchkey, appId),
    });
    if (verdict === 'scheme_mismatch') {
      warnUntrustedProxy(latchkey.logger ?? consoleLogger, request.origin);
      return { kind: 'error', error: new LatchkeyError('https_behind_untrusted_proxy') };
    }
    if (verdict === 'refused') return { kind: 'error', error: new LatchkeyError('cross_site_request') };
    if (revoking) {
      const credential: SessionCredential =
        token !== undefined ? { session_token: token } : { session_jwt: jwt as string };
      return { kind: 'session', auth: placeholder(appId), appId, credential };
    }

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
    setCookies.push(
      ...sessionCookies(cookies, siteOf(request), {
        session_jwt: fresh.session_jwt,
        expiresAt: fresh.session.expires_at,
      }),
    );
    // An organization session's roles are in the JWT just signed: checked as any (no storage read).
    const auth: SessionCheck = fresh.session.organization_id
      ? {
          ...(await latchkey.sessions.check({ app_id: appId, session_jwt: fresh.session_jwt, mode: 'jwt' })),
          expires_at: fresh.session.expires_at,
        }
      : {
          app_id: appId,
          user_id: fresh.user_id,
          session_id: fresh.session.id,
          factors: fresh.session.factors,
          auth_time: authTime(fresh.session.factors),
          expires_at: fresh.session.expires_at,
        };
    return { kind: 'session', auth, appId, credential: { session_token: token } };
  }

  /**
   * The cookies' App: the JWT's (no storage read, even past its expiry: the token beside it is
   * then checked within that App), else the token's.
   */
  async function cookieApp(token: string | undefined, jwt: string | undefined): Promise<string> {
    if (jwt !== undefined) {
      try {
        return await appOf({ session_jwt: jwt });
      } catch (err) {
        if (token === undefined) throw err;
      }
    }
    return appOf({ session_token: token as string });
  }
}

const siteOf = (request: HostRequest): CookieSite =>
  cookieSite(request.hostname, request.origin.startsWith('https:') ? 'https' : 'http', request.header);

function usedCookies(request: HostRequest, names: { token: string; jwt: string }): boolean {
  if (bearerCredential(request.header('authorization')) !== undefined) return false;
  const sent = readSessionCookies(request.header('cookie'), names);
  return sent.token !== undefined || sent.jwt !== undefined || sent.repeated;
}

const placeholder = (appId: string): SessionCheck => ({
  app_id: appId,
  user_id: '',
  session_id: '',
  factors: [],
  auth_time: 0,
  expires_at: 0,
});

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

/** The App's allowed browser origins (settings `cors.allowed_origins`), read at most every 5 s. */
const APP_CACHE_MS = 5000;
const originCaches = new WeakMap<LatchkeySessions, Map<string, { origins: string[]; until: number }>>();

async function allowedOrigins(latchkey: LatchkeySessions, appId: string): Promise<string[]> {
  const cache = originCaches.get(latchkey) ?? new Map();
  originCaches.set(latchkey, cache);
  const cached = cache.get(appId);
  if (cached && cached.until > Date.now()) return cached.origins;
  const app = await latchkey.apps.get(appId);
  const origins = app.settings.cors.allowed_origins;
  cache.set(appId, { origins, until: Date.now() + APP_CACHE_MS });
  return origins;
}
