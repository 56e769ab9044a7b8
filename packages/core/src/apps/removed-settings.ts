import { LatchkeyError } from '../errors.js';

/**
 * Settings blocks a later version took away from Apps, with where their job went. A patch that
 * sets one is refused with that answer rather than a bare "unknown setting"; a stored settings
 * document that still carries one loads with it ignored (the schema drops keys it does not know).
 */
const REMOVED: Record<string, { field: string; why: string }> = {
  webhooks: {
    field: 'webhooks.allow_private_targets',
    why: "Whether webhooks may reach loopback and private addresses is the server operator's decision, not an App's: the createLatchkey option webhooks.allowPrivateTargets (LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_TARGETS=1 in the example server).",
  },
};

/** Refuses a settings patch that names a removed setting, saying what replaced it. */
export function refuseRemovedSettings(patch: Record<string, unknown>): void {
  for (const [key, { field, why }] of Object.entries(REMOVED))
    if (Object.hasOwn(patch, key))
      throw new LatchkeyError('unknown_field', `The App setting '${field}' was removed. ${why}`, { field });
}
