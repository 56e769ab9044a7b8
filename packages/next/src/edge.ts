import {
  bearerCredential,
  factorsMeetStepUp,
  type ProvenFactor,
  parseDurationSeconds,
  readSessionCookies,
  type SessionCookieNaming,
  sessionCookieNames,
} from '@latchkey/core/credentials';
// jose's subpaths, not its index: the index also brings JWE, whose deflate the edge runtime lacks.
import { JOSEError, JWKSTimeout, JWTExpired } from 'jose/errors';
import { createRemoteJWKSet } from 'jose/jwks/remote';
import { jwtVerify } from 'jose/jwt/verify';
import { type EdgeRevocationOptions, isRevokedAtEdge } from './edge-revocations.js';

/**
 * `@latchkey/next/edge`: the session check for Next's `proxy.ts` (Node.js runtime) and for edge
 * runtimes (`middleware.ts` before Next 16, other edge platforms). It verifies the session JWT
 * with the App's public keys, fetched from its JWKS URL and cached, and imports nothing but jose
 * and the import-free credential parsing of `@latchkey/core/credentials`: no storage, no server
 * code. A revoked session passes until its JWT expires, or with `revocations`, until the App's
 * revocation feed is next read (every 5 s by default).
 */
export interface EdgeSessionOptions {
  /** The App's JWKS: `https://your.site/api/v1/auth/sessions/jwks/{app_id}`. */
  jwksUrl: string | URL;
  /** The App whose JWTs are accepted (their audience). */
  appId: string;
  /** The JWTs' issuer; default `latchkey` (the `jwt_issuer` option of createLatchkey). */
  issuer?: string;
  /**
   * Read the session JWT cookie too (when no bearer JWT is sent); off by default. Give the same
   * cookie options as `latchkeyHandlers` (names, domain, path, secure): the default names
   * depend on them and on the request's host. A request carrying a cookie name twice has no
   * session here (a Node route answers it `repeated_session_cookie`).
   */
  cookies?: boolean | SessionCookieNaming;
  /**
   * Step-up, as `requireSession`'s: a factor proven within this long (seconds, or `'30s'`, `'5m'`,
   * `'1h'`), read from the JWT's factors. Short of it the answer is `stepUpRequired: true`.
   */
  freshWithin?: number | string;
  /** Step-up: one of these factor kinds (with `freshWithin`, proven that recently). */
  factors?: readonly string[];
  /**
   * As `requireSession`'s: a session scoped to an organization (`true`), or to this one (its id).
   * Short of it the answer is `permissionDenied: true`.
   */
  organization?: boolean | string;
  /** As `requireSession`'s: the JWT's `permissions` must hold this one, or `*`. */
  permission?: string;
  /**
   * Refuse revoked sessions before their JWTs expire: the App's revocation feed, read at most
   * every `refreshSeconds` (default 5) and shared by the requests of this isolate.
   */
  revocations?: EdgeRevocationOptions;
}

/** The verified session, in the shape of `SessionCheck`. */
export interface EdgeSession {
  app_id: string;
  user_id: string;
  session_id: string;
  factors: unknown[];
  expires_at: number;
  /** A session scoped to an organization: its id, the member's roles and their permissions. */
  organization_id?: string;
  roles?: string[];
  permissions?: string[];
}

export type EdgeSessionResult =
  | { session: EdgeSession }
  /**
   * `refreshable`: the JWT cookie is missing or expired but the session token cookie is there, so
   * a Node route checking with `cookies` (`withSession`, `requireSession`) can renew the JWT cookie.
   */
  | { session: null; refreshable: boolean }
  /** A valid session short of the step-up asked (`freshWithin`, `factors`): prove a factor again. */
  | { session: null; refreshable: false; stepUpRequired: true }
  /** A valid session short of `organization` / `permission` (a Node route answers 403 `permission_denied`). */
  | { session: null; refreshable: false; permissionDenied: true };

/** The organization claims of a verified payload, when it has them all. */
function scopeOf(payload: Record<string, unknown>) {
  const { organization_id, roles, permissions } = payload;
  if (typeof organization_id !== 'string' || !Array.isArray(roles) || !Array.isArray(permissions))
    return undefined;
  return { organization_id, roles: roles as string[], permissions: permissions as string[] };
}

/** The same rule as the Node adapters' (core's host-sessions/organization-guard.ts). */
function meetsOrganization(scope: ReturnType<typeof scopeOf>, options: EdgeSessionOptions): boolean {
  const { organization, permission } = options;
  if ((organization === undefined || organization === false) && permission === undefined) return true;
  if (!scope) return false;
  if (typeof organization === 'string' && scope.organization_id !== organization) return false;
  return (
    permission === undefined || scope.permissions.includes('*') || scope.permissions.includes(permission)
  );
}

// One remote key set per JWKS URL: jose caches the document and its imported keys, and refetches
// (rate-limited) when a JWT names a key it lacks, as after a key rotation.
const MAX_KEY_SETS = 100;
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function keySet(url: string): ReturnType<typeof createRemoteJWKSet> {
  const known = keySets.get(url);
  if (known) return known;
  const set = createRemoteJWKSet(new URL(url));
  if (keySets.size >= MAX_KEY_SETS) keySets.delete(keySets.keys().next().value as string);
  keySets.set(url, set);
  return set;
}

/** The request's host name without port: `Host`, else the URL's. */
function hostOf(request: { headers: { get(name: string): string | null }; url?: string }): string {
  const host = request.headers.get('host');
  try {
    return new URL(`http://${host ?? ''}`).hostname || (request.url ? new URL(request.url).hostname : '');
  } catch {
    return '';
  }
}

/** Checks the request's session JWT (bearer, else the JWT cookie when `cookies` is set). */
export async function verifyEdgeSession(
  request: { headers: { get(name: string): string | null }; url?: string },
  options: EdgeSessionOptions,
): Promise<EdgeSessionResult> {
  const within = options.freshWithin === undefined ? undefined : parseDurationSeconds(options.freshWithin);
  if (options.freshWithin !== undefined && within === undefined)
    throw new TypeError("freshWithin: a whole number of seconds, or like '30s', '5m', '1h'.");
  const bearer = bearerCredential(request.headers.get('authorization'));
  const naming = options.cookies ? (options.cookies === true ? {} : options.cookies) : undefined;
  // With a bearer the cookies are not read (nor refreshable): the bearer decides.
  const sent =
    naming && !bearer
      ? readSessionCookies(request.headers.get('cookie'), sessionCookieNames(naming, hostOf(request)))
      : { token: undefined, jwt: undefined, repeated: false };
  if (sent.repeated) return { session: null, refreshable: false };
  const hasToken = sent.token !== undefined;
  let jwt: string | undefined;
  if (bearer) jwt = 'session_jwt' in bearer ? bearer.session_jwt : undefined;
  else jwt = sent.jwt;
  // A bearer session token needs storage: the edge cannot check it.
  if (jwt === undefined) return { session: null, refreshable: hasToken };
  try {
    const { payload } = await jwtVerify(jwt, keySet(String(options.jwksUrl)), {
      issuer: options.issuer ?? 'latchkey',
      audience: options.appId,
      algorithms: ['ES256', 'EdDSA'],
    });
    const { sub, sid, exp, factors } = payload;
    if (
      typeof sub !== 'string' ||
      typeof sid !== 'string' ||
      typeof exp !== 'number' ||
      !Array.isArray(factors)
    )
      return { session: null, refreshable: false };
    if (options.revocations && (await isRevokedAtEdge(sid, options.revocations)))
      return { session: null, refreshable: false };
    const now = Math.floor(Date.now() / 1000);
    if (
      (within !== undefined || options.factors?.length) &&
      !factorsMeetStepUp(factors as ProvenFactor[], now, within, options.factors)
    )
      return { session: null, refreshable: false, stepUpRequired: true };
    const scope = scopeOf(payload);
    const denied = !meetsOrganization(scope, options);
    if (denied) return { session: null, refreshable: false, permissionDenied: true };
    return {
      session: { app_id: options.appId, user_id: sub, session_id: sid, factors, expires_at: exp, ...scope },
    };
  } catch (err) {
    if (err instanceof JOSEError && !(err instanceof JWKSTimeout)) {
      return { session: null, refreshable: hasToken && err instanceof JWTExpired };
    }
    throw err; // the JWKS could not be fetched: a fault of the server, not of the client
  }
}
export type { EdgeRevocationOptions } from './edge-revocations.js';
