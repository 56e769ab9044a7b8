import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type {} from '../sso/repo.js';
import type { OrganizationSettings } from './schema.js';

/**
 * `sso_required` turned on only where members have the SSO connection to sign in through: the
 * connection's DELETE refuses while it is on (sso/connections.ts), so the two stay consistent
 * (a delete racing this check can leave it on without one; the start then answers 404).
 */
export async function checkSsoRequired(
  k: Kernel,
  appId: string,
  organizationId: string,
  settings: OrganizationSettings,
): Promise<void> {
  if (!settings.sso_required) return;
  if (await k.storage.sso.findConnection(appId, { organization_id: organizationId })) return;
  throw new LatchkeyError(
    'invalid_field',
    "Invalid field 'settings.sso_required': the organization has no SSO connection (POST /v1/organizations/{organization_id}/sso_connection first).",
    { field: 'settings.sso_required' },
  );
}
