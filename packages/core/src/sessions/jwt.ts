import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JSONWebKeySet,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';
import { LatchkeyError } from '../errors.js';
import type { Factor } from './repo.js';
import type { ActiveSigningKey } from './signing-keys.js';

export const DEFAULT_JWT_ISSUER = 'latchkey';

export interface SessionClaims extends JWTPayload {
  sub: string;
  sid: string;
  factors: Factor[];
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
  },
): Promise<string> {
  return new SignJWT({ sid: claims.sessionId, factors: claims.factors })
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
 * where revocation must take effect at once.
 */
export async function verifySessionJwt(
  jwt: string,
  options: VerifySessionJwtOptions,
): Promise<SessionClaims> {
  const keys =
    options.jwks instanceof URL ? createRemoteJWKSet(options.jwks) : createLocalJWKSet(options.jwks);
  try {
    const { payload } = await jwtVerify(jwt, keys, {
      issuer: options.issuer ?? DEFAULT_JWT_ISSUER,
      audience: options.appId,
      algorithms: ['ES256', 'EdDSA'],
      ...(options.now === undefined ? {} : { currentDate: new Date(options.now * 1000) }),
    });
    if (
      typeof payload.sub !== 'string' ||
      typeof payload.sid !== 'string' ||
      !Array.isArray(payload.factors)
    ) {
      throw new Error('missing session claims');
    }
    return payload as SessionClaims;
  } catch (err) {
    throw new LatchkeyError('invalid_session_jwt', undefined, { cause: err });
  }
}
