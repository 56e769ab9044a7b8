import type { DeviceFingerprint } from './device-fingerprint.js';

export type DeviceMatchMode = 'none' | 'ip' | 'user_agent' | 'both';

/**
 * What a verify's device must repeat of the sender's, as storage checks it: each listed field
 * must be present on both sides and equal (`value` undefined: the verify did not send it, so it
 * cannot match). Empty: the App asks nothing. Plain data, so SQL can check it in the same
 * statement that spends the code.
 */
export type DeviceRequirement = { field: 'ip' | 'user_agent'; value: string | undefined }[];

export function deviceRequirement(
  mode: DeviceMatchMode,
  verifying: DeviceFingerprint | undefined,
): DeviceRequirement {
  const fields: ('ip' | 'user_agent')[] =
    mode === 'none' ? [] : mode === 'both' ? ['ip', 'user_agent'] : [mode];
  return fields.map((field) => ({ field, value: verifying?.[field] }));
}

export function meetsDeviceRequirement(req: DeviceRequirement, sent: DeviceFingerprint | null): boolean {
  return req.every(({ field, value }) => value !== undefined && sent?.[field] === value);
}

/** Whether a verify's device matches the send's, as far as the App asks. */
export function fingerprintMatches(
  mode: DeviceMatchMode,
  sent: DeviceFingerprint | null,
  verifying: DeviceFingerprint | undefined,
): boolean {
  return meetsDeviceRequirement(deviceRequirement(mode, verifying), sent);
}
