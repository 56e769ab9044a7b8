import { LatchkeyError } from '../errors.js';
import type { OrganizationSettings } from './schema.js';

/**
 * The id of the organization's SSO connection, null when it holds none: the sso capability
 * answers (sso/service.ts).
 */
export type SsoConnectionLookup = (appId: string, organizationId: string) => Promise<string | null>;

/**
 * `sso_required` turned on only where members have the SSO connection to sign in through: the
 * connection's DELETE refuses while it is on (sso/connections.ts), so the two stay consistent
 * (a delete racing this check can leave it on without one; the start then answers 404). Without
 * the sso capability (`connectionOf` never given) no organization can have one.
 */
export async function checkSsoRequired(
  connectionOf: SsoConnectionLookup | undefined,
  appId: string,
  organizationId: string,
  settings: OrganizationSettings,
): Promise<void> {
  if (!settings.sso_required) return;
  if (connectionOf && (await connectionOf(appId, organizationId)) !== null) return;
  throw new LatchkeyError(
    'invalid_field',
    "Invalid field 'settings.sso_required': the organization has no SSO connection (POST /v1/organizations/{organization_id}/sso_connection first).",
    { field: 'settings.sso_required' },
  );
}
