import type { SessionClaims } from './jwt.js';

const MAX_ENTRIES = 20_000;

/**
 * JWTs whose signature, issuer and audience this process has already checked, with their claims,
 * until they expire. A signature that verified once verifies for ever (keys are retired, never
 * withdrawn), so a host that sees the same JWT on every request pays the ES256/EdDSA check once
 * per JWT instead of once per request. Bounded: the oldest entry leaves first.
 */
export function verifiedJwts() {
  const byJwt = new Map<string, SessionClaims>();
  const keyOf = (appId: string, jwt: string) => `${appId}\n${jwt}`;
  return {
    /** The claims of a JWT verified before for this App, while it is unexpired at `now`. */
    get(appId: string, jwt: string, now: number): SessionClaims | undefined {
      const key = keyOf(appId, jwt);
      const claims = byJwt.get(key);
      if (claims === undefined) return undefined;
      if (claims.exp > now) return claims;
      byJwt.delete(key);
      return undefined;
    },
    remember(appId: string, jwt: string, claims: SessionClaims): void {
      if (byJwt.size >= MAX_ENTRIES) byJwt.delete(byJwt.keys().next().value as string);
      // Frozen: every later caller gets this same object, so no caller may change it for the next.
      for (const factor of claims.factors) Object.freeze(factor);
      Object.freeze(claims.factors);
      byJwt.set(keyOf(appId, jwt), Object.freeze(claims));
    },
  };
}
