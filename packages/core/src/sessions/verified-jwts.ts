import type { SessionClaims } from './jwt.js';

const MAX_ENTRIES = 20_000;

/**
 * JWTs whose signature, issuer and audience this process has already checked, with their claims,
 * until they expire. A signature that verified once verifies for ever (keys are retired, never
 * withdrawn), so a host that sees the same JWT on every request pays the ES256/EdDSA check once
 * per JWT instead of once per request. Bounded: the oldest entry leaves first.
 */
export function verifiedJwts() {
  // Keyed by the JWT alone: its signed `aud` names one App, which the entry keeps to compare.
  const byJwt = new Map<string, { appId: string; claims: SessionClaims }>();
  return {
    /**
     * The claims of a JWT verified before, while it is unexpired at `now`, for `appId` (any App
     * when undefined: the caller then takes the App from `appIdOf`).
     */
    get(
      appId: string | undefined,
      jwt: string,
      now: number,
    ): { appId: string; claims: SessionClaims } | undefined {
      const entry = byJwt.get(jwt);
      if (entry === undefined || (appId !== undefined && entry.appId !== appId)) return undefined;
      if (entry.claims.exp > now) return entry;
      byJwt.delete(jwt);
      return undefined;
    },
    remember(appId: string, jwt: string, claims: SessionClaims): void {
      if (byJwt.size >= MAX_ENTRIES) byJwt.delete(byJwt.keys().next().value as string);
      // Frozen: every later caller gets this same object, so no caller may change it for the next.
      for (const factor of claims.factors) Object.freeze(factor);
      Object.freeze(claims.factors);
      byJwt.set(jwt, { appId, claims: Object.freeze(claims) });
    },
  };
}
