import { LatchkeyError } from '../errors.js';
import type { Factor } from '../shared/factor.js';
import { factorsMeetStepUp, parseDurationSeconds } from '../shared/step-up-rule.js';

/** Every kind of proof a session's factor can be (`Factor['type']`), for step-up requirements. */
export const FACTOR_TYPES = [
  'otp',
  'magic_link',
  'password',
  'totp',
  'recovery_code',
  'webauthn',
  'signature_challenge',
  'oauth',
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

/** Seconds from `30`, `'30s'`, `'5m'`, `'1h'` or `'1d'`; throws `invalid_field` for anything else. */
export function durationSeconds(value: number | string, field = 'fresh_within'): number {
  const seconds = parseDurationSeconds(value);
  if (seconds !== undefined) return seconds;
  throw new LatchkeyError(
    'invalid_field',
    `${field}: a whole number of seconds, or like '30s', '5m', '1h'.`,
    {
      field,
    },
  );
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
  if (factorsMeetStepUp(factors, now, within, kinds)) return;
  const which = kinds === undefined ? 'any factor' : kinds.join(' or ');
  const when = within === undefined ? '' : ` within the last ${within} seconds`;
  throw new LatchkeyError(
    'step_up_required',
    `This action needs ${which} proven on this session${when}: prove it again, then retry.`,
  );
}
