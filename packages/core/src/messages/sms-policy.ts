import { loadPhoneNumbers } from '../contacts/phone-numbers.js';
import { LatchkeyError } from '../errors.js';

/**
 * Number types as `libphonenumber-js` (with its full 'max' metadata) tells them, in the settings'
 * spelling. `unknown`: the metadata gives the number no type.
 */
export const smsNumberTypes = [
  'premium_rate',
  'shared_cost',
  'toll_free',
  'voip',
  'personal_number',
  'pager',
  'uan',
  'voicemail',
  'fixed_line',
  'mobile',
  'fixed_line_or_mobile',
  'unknown',
] as const;

export type SmsNumberType = (typeof smsNumberTypes)[number];

/** The type of an E.164 number, lower-cased; `unknown` when the metadata has none. */
export async function smsNumberType(e164: string): Promise<SmsNumberType> {
  const { parsePhoneNumberFromString } = await loadPhoneNumbers();
  const type = parsePhoneNumberFromString(e164)?.getType();
  return type ? (type.toLowerCase() as SmsNumberType) : 'unknown';
}

/**
 * Refuses an SMS to a number the App does not send to: a calling code outside
 * `sms.allowed_calling_codes` (when the list is not empty) or a type in
 * `sms.refused_number_types`. SMS pumping sends codes to numbers whose carrier pays the sender's
 * provider per message (premium-rate, shared-cost, some countries); this stops it before any
 * record is written or message sent.
 */
export async function checkSmsDestination(
  settings: { allowed_calling_codes: readonly string[]; refused_number_types: readonly SmsNumberType[] },
  e164: string,
): Promise<void> {
  const { parsePhoneNumberFromString } = await loadPhoneNumbers();
  const parsed = parsePhoneNumberFromString(e164);
  const callingCode = parsed?.countryCallingCode ?? '';
  if (settings.allowed_calling_codes.length > 0 && !settings.allowed_calling_codes.includes(callingCode)) {
    throw new LatchkeyError('sms_country_not_allowed', undefined, { field: 'phone_number' });
  }
  if (settings.refused_number_types.includes(await smsNumberType(e164))) {
    throw new LatchkeyError('phone_number_type_not_allowed', undefined, { field: 'phone_number' });
  }
}
