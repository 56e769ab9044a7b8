import { Secret, TOTP } from 'otpauth';

export const TOTP_PERIOD_SECONDS = 30;

export interface TotpParameters {
  algorithm?: 'SHA1' | 'SHA256' | 'SHA512';
  digits?: number;
  period?: number;
  /** Steps accepted either side of the current one. */
  window?: number;
}

/**
 * The time step a code is valid for at `nowMs` (the current step or one within the window), or
 * null. The one place codes are checked, so the RFC 6238 vectors test this very path.
 */
export function matchingStep(
  secret: Uint8Array,
  code: string,
  nowMs: number,
  params: TotpParameters = {},
): number | null {
  const period = params.period ?? TOTP_PERIOD_SECONDS;
  const digits = params.digits ?? 6;
  if (!new RegExp(`^\\d{${digits}}$`).test(code)) return null;
  const totp = new TOTP({
    secret: new Secret({ buffer: secret.slice().buffer }),
    algorithm: params.algorithm ?? 'SHA1',
    digits,
    period,
  });
  const delta = totp.validate({ token: code, timestamp: nowMs, window: params.window ?? 1 });
  return delta === null ? null : Math.floor(nowMs / 1000 / period) + delta;
}

/** The `otpauth://` URI authenticator apps read (from the QR code). */
export function provisioningUri(secret: Uint8Array, issuer: string, label: string): string {
  return new TOTP({
    issuer,
    label,
    secret: new Secret({ buffer: secret.slice().buffer }),
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD_SECONDS,
  }).toString();
}

export const base32Secret = (secret: Uint8Array): string =>
  new Secret({ buffer: secret.slice().buffer }).base32;
