/**
 * The step-up rule on its own: pure and import-free, so the edge check
 * (`@latchkey/core/credentials`, used by `@latchkey/next/edge`) applies the same rule to a JWT's
 * factors as `requireSession` does to a checked session.
 */

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Seconds from `30`, `'30s'`, `'5m'`, `'1h'` or `'1d'`; `undefined` for anything else. */
export function parseDurationSeconds(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  const match = /^(\d{1,7})([smhd])$/.exec(value);
  return match ? Number(match[1]) * (UNITS[match[2] as string] as number) : undefined;
}

/** A session factor as far as step-up reads it: its kind and when it was last proven. */
export interface ProvenFactor {
  type: string;
  method: { last_verified_at: number };
}

/**
 * Whether one of `factors` is of one of `kinds` (any kind when absent) and was proven at or
 * after `now - withinSeconds` (whenever, when absent). Times are Unix seconds.
 */
export function factorsMeetStepUp(
  factors: readonly ProvenFactor[],
  now: number,
  withinSeconds: number | undefined,
  kinds: readonly string[] | undefined,
): boolean {
  return factors.some(
    (f) =>
      (kinds === undefined || kinds.length === 0 || kinds.includes(f.type)) &&
      (withinSeconds === undefined || f.method.last_verified_at >= now - withinSeconds),
  );
}
