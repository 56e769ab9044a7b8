import type { JSONWebKeySet, JWTPayload, JWTVerifyGetKey } from 'jose';
import { LatchkeyError } from '../errors.js';
import type { Factor } from '../shared/factor.js';
import { authTime } from './auth-time.js';
import { loadJose } from './jose.js';
import { documentKeys, remoteKeys } from './key-import.js';
import type { ActiveSigningKey } from './signing-keys.js';

export const DEFAULT_JWT_ISSUER = 'latchkey';

export interface SessionClaims extends JWTPayload {
  sub: string;
  sid: string;
  exp: number;
  iat?: number;
  factors: Factor[];
  /** Unix seconds: when a factor was last proven on the session (the latest factor's time). */
  auth_time?: number;
  /** The kinds of factor the session holds (`otp`, `webauthn`, `totp`, …). */
  amr?: string[];
  /** A session scoped to an organization: its id, and the member's roles when the JWT was signed. */
  organization_id?: string;
  roles?: string[];
  /** What those roles granted in the App's roles settings (`*`: every permission). */
  permissions?: string[];
}

/** The organization a session is scoped to, and what its member holds there. */
export interface OrganizationScope {
  organization_id: string;
  roles: string[];
  permissions: string[];
}

export async function signSessionJwt(
  key: ActiveSigningKey,
  claims: {
    appId: string;
    issuer: string;
    userId: string;
    sessionId: string;
    factors: Factor[];
    iat: number;
    exp: number;
    scope?: OrganizationScope | undefined;
  },
): Promise<string> {
  const { SignJWT } = await loadJose();
  // `auth_time` (OIDC) and `amr` (RFC 8176 style, Latchkey's factor kinds): what a verifier outside
  // Latchkey (an edge function, another service) needs for a step-up check without `factors`.
  const amr = [...new Set(claims.factors.map((f) => f.type))];
  return new SignJWT({
    sid: claims.sessionId,
    auth_time: authTime(claims.factors),
    amr,
    factors: claims.factors,
    // In the JWT so that a permission check in jwt mode reads no storage; a change of the
    // member's roles revokes the session, so the claims never outlive the roles they state.
    ...(claims.scope ?? {}),
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setSubject(claims.userId)
    .setIssuer(claims.issuer)
    .setAudience(claims.appId)
    .setIssuedAt(claims.iat)
    .setExpirationTime(claims.exp)
    .sign(key.privateKey);
}

export interface VerifySessionJwtOptions {
  /** The App's JWKS: the document itself, or its URL (`/v1/auth/sessions/jwks/{app_id}`). */
  jwks: JSONWebKeySet | URL;
  appId: string;
  issuer?: string;
  /** Unix seconds; the system clock when absent. */
  now?: number;
}

/**
 * Verifies a session JWT with the App's public keys only: no storage round trip, so a
 * revoked session's JWT stays valid until it expires (minutes). Use `sessions.authenticate`
 * where revocation must take effect at once. Key sets are kept per JWKS URL and keys imported
 * once per process, so calling this per request costs one signature check.
 */
export async function verifySessionJwt(
  jwt: string,
  options: VerifySessionJwtOptions,
): Promise<SessionClaims> {
  const keys = options.jwks instanceof URL ? remoteKeys(options.jwks) : documentKeys(options.jwks);
  return verifySessionClaims(jwt, keys, {
    appId: options.appId,
    issuer: options.issuer ?? DEFAULT_JWT_ISSUER,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}

/**
 * Signature, issuer, audience and expiry of a session JWT with the given keys; throws
 * `invalid_session_jwt`. `ignoreExpiry` is for revocation only: a client holding nothing but an
 * expired JWT must still be able to end its session.
 */
export async function verifySessionClaims(
  jwt: string,
  keys: JWTVerifyGetKey,
  options: { appId: string; issuer: string; now?: number; ignoreExpiry?: boolean },
): Promise<SessionClaims> {
  try {
    const now = options.now ?? Math.floor(Date.now() / 1000);
    const { jwtVerify } = await loadJose();
    const { payload } = await jwtVerify(jwt, keys, {
      issuer: options.issuer,
      audience: options.appId,
      algorithms: ['ES256', 'EdDSA'],
      currentDate: new Date(now * 1000),
      // jose takes the tolerance off `now` for `exp`: a tolerance of `now` accepts any exp > 0.
      ...(options.ignoreExpiry ? { clockTolerance: now } : {}),
    });
    if (
      typeof payload.sub !== 'string' ||
      typeof payload.sid !== 'string' ||
      typeof payload.exp !== 'number' ||
      !Array.isArray(payload.factors) ||
      (payload.organization_id !== undefined &&
        (typeof payload.organization_id !== 'string' ||
          !Array.isArray(payload.roles) ||
          !Array.isArray(payload.permissions)))
    ) {
      throw new Error('missing session claims');
    }
    return payload as SessionClaims;
  } catch (err) {
    throw new LatchkeyError('invalid_session_jwt', undefined, { cause: err });
  }
}
