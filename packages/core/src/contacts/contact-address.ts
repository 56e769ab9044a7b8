import { z } from 'zod';
import { LatchkeyError } from '../errors.js';
import { loadPhoneNumbers } from './phone-numbers.js';

const emailFormat = z.email();

/**
 * Trimmed and lower-cased, whole address. Lower-casing the local part is what users expect
 * ("Ann@x.io" and "ann@x.io" are one person) even though RFC 5321 leaves it case-sensitive.
 */
export function normalizeEmail(raw: string, field = 'email'): string {
  const email = raw.trim().toLowerCase();
  if (email.length > 254 || !emailFormat.safeParse(email).success) {
    throw new LatchkeyError('invalid_email', undefined, { field });
  }
  return email;
}

/** E.164, from any international notation; numbers that cannot exist are refused. */
export async function normalizePhoneNumber(raw: string, field = 'phone_number'): Promise<string> {
  const { parsePhoneNumberFromString } = await loadPhoneNumbers();
  const parsed = raw.length <= 40 ? parsePhoneNumberFromString(raw.trim()) : undefined;
  if (!parsed?.isValid()) throw new LatchkeyError('invalid_phone_number', undefined, { field });
  return parsed.number;
}
