import { LatchkeyError } from '../errors.js';
import type { Factor } from '../shared/factor.js';

/** Every kind of proof a session's factor can be (`Factor['type']`), for step-up requirements. */
export const FACTOR_TYPES = [
  'otp',
  'magic_link',
  'password',
  'totp',
  'recovery_code',
  'webauthn',
  'signature_challenge',
] as const satisfies ReadonlyArray<Factor['type']>;

export type FactorType = (typeof FACTOR_TYPES)[number];

/**
 * What a sensitive action asks of the session ("sudo mode"): a factor proven within
 * `freshWithin` (seconds, or `'30s'`, `'5m'`, `'1h'`), and when `factors` is given one of those
 * kinds (then the freshness applies to that factor, not to any).
 */
export interface StepUpRequirement {
  freshWithin?: number | string | undefined;
  factors?: readonly FactorType[] | undefined;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Seconds from `30`, `'30s'`, `'5m'`, `'1h'` or `'1d'`; throws `invalid_field` for anything else. */
export function durationSeconds(value: number | string, field = 'fresh_within'): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  const match = typeof value === 'string' ? /^(\d{1,7})([smhd])$/.exec(value) : null;
  if (!match) {
    throw new LatchkeyError(
      'invalid_field',
      `${field}: a whole number of seconds, or like '30s', '5m', '1h'.`,
      {
        field,
      },
    );
  }
  return Number(match[1]) * (UNITS[match[2] as string] as number);
}

/** Whether the requirement asks anything at all (so a plain check pays nothing for it). */
export const asksStepUp = (r: StepUpRequirement): boolean =>
  r.freshWithin !== undefined || (r.factors !== undefined && r.factors.length > 0);

/**
 * Throws `step_up_required` (401) when the session's factors do not meet the requirement at
 * `now` (Unix seconds); the message names the factors that would do and how recent they must be.
 */
export function requireStepUp(factors: readonly Factor[], now: number, r: StepUpRequirement): void {
  const within = r.freshWithin === undefined ? undefined : durationSeconds(r.freshWithin);
  const kinds = r.factors !== undefined && r.factors.length > 0 ? r.factors : undefined;
  const ok = factors.some(
    (f) =>
      (kinds === undefined || kinds.includes(f.type)) &&
      (within === undefined || f.method.last_verified_at >= now - within),
  );
  if (ok) return;
  const which = kinds === undefined ? 'any factor' : kinds.join(' or ');
  const when = within === undefined ? '' : ` within the last ${within} seconds`;
  throw new LatchkeyError(
    'step_up_required',
    `This action needs ${which} proven on this session${when}: prove it again, then retry.`,
  );
}
