import type { Factor } from '../shared/factor.js';

const MAX_SESSIONS = 10_000;

interface Issued {
  jwt: string;
  kid: string;
  iat: number;
  exp: number;
  factors: string;
}

/** Factors in a form that compares equal whatever key order storage gave back (jsonb sorts keys). */
export function factorsKey(factors: readonly Factor[]): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((key) => [key, canonical((v as Record<string, unknown>)[key])]),
          )
        : v;
  return JSON.stringify(canonical(factors));
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
    reusable(sessionId: string, kid: string, factors: string, now: number): string | undefined {
      const issued = bySession.get(sessionId);
      if (!issued || issued.kid !== kid || issued.factors !== factors) return undefined;
      return issued.exp - now > (issued.exp - issued.iat) / 2 ? issued.jwt : undefined;
    },
    forget(sessionId: string): void {
      bySession.delete(sessionId);
    },
  };
}
