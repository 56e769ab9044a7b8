import type { SessionRevocation } from '@latchkey/core';

/**
 * A NOTIFY payload of the trigger (migration 0016): `[app_id, session_id, revoked_at]`. Anything
 * else (another writer on the channel) is undefined: ignored, never thrown, since
 * it arrives inside the driver's socket handler.
 */
export function parseRevocation(payload: string): SessionRevocation | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  // Fields a later migration may append are ignored, so a process not yet upgraded still hears.
  if (!Array.isArray(value)) return undefined;
  const [app_id, session_id, revoked_at] = value as unknown[];
  if (typeof app_id !== 'string' || typeof session_id !== 'string' || !Number.isSafeInteger(revoked_at))
    return undefined;
  return { app_id, session_id, revoked_at: revoked_at as number };
}
