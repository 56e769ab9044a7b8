import type { Factor } from '../shared/factor.js';

const MAX_SESSIONS = 10_000;

interface Issued {
  jwt: string;
  kid: string;
  iat: number;
  exp: number;
  factors: readonly Factor[];
}

/**
 * Whether two JSON values are equal whatever their key order (jsonb gives keys back sorted); a
 * key holding `undefined` counts as absent, as in JSON. Compared in place: canonicalising both
 * to text cost ~20 µs per `authenticate`.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let keys = 0;
  for (const key in left) {
    if (left[key] === undefined) continue;
    if (!Object.hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
    keys++;
  }
  for (const key in right) if (right[key] !== undefined) keys--;
  return keys === 0;
}

/**
 * The latest JWT issued or seen per session, so that checking a session again hands back the same
 * JWT while it has more than half its lifetime left, instead of signing a new one per request.
 * It is only reused while its factors are still the session's and its key still signs.
 */
export function jwtReuse() {
  const bySession = new Map<string, Issued>();
  return {
    remember(sessionId: string, issued: Issued): void {
      bySession.delete(sessionId);
      if (bySession.size >= MAX_SESSIONS) bySession.delete(bySession.keys().next().value as string);
      bySession.set(sessionId, issued);
    },
    /** The session's JWT when it was signed by `kid` (the key signing now) with these factors. */
    reusable(sessionId: string, kid: string, factors: readonly Factor[], now: number): string | undefined {
      const issued = bySession.get(sessionId);
      if (!issued || issued.kid !== kid || !sameJson(issued.factors, factors)) return undefined;
      return issued.exp - now > (issued.exp - issued.iat) / 2 ? issued.jwt : undefined;
    },
    forget(sessionId: string): void {
      bySession.delete(sessionId);
    },
  };
}
