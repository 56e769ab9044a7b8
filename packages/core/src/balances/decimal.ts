/**
 * Exact conversions between atomic units (bigint) and decimal strings: no floating point
 * anywhere, so every u128 (and beyond) converts without loss.
 */

/**
 * `value` atomic units as a decimal amount of a token with `decimals` places: plain digits, at
 * least one before the point, no exponent, no separators, no trailing zeros after the point and
 * no point when the fraction is zero (`1500000n, 6` → `"1.5"`; `0n` → `"0"`).
 */
export function formatUnits(value: bigint, decimals: number): string {
  assertDecimals(decimals);
  if (value < 0n) return `-${formatUnits(-value, decimals)}`;
  if (decimals === 0) return value.toString();
  const digits = value.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, -decimals);
  const fraction = digits.slice(-decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/**
 * A non-negative decimal string with at most `decimals` places as atomic units, or undefined
 * when it is not one (sign, exponent, spaces, too many places).
 */
export function parseUnits(text: string, decimals: number): bigint | undefined {
  assertDecimals(decimals);
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return undefined;
  const [, whole = '', fraction = ''] = match;
  if (fraction.length > decimals) return undefined;
  return BigInt(whole + fraction.padEnd(decimals, '0'));
}

function assertDecimals(decimals: number) {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255)
    throw new RangeError(`decimals must be an integer from 0 to 255, got ${decimals}`);
}
