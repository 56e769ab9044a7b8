import { LatchkeyError } from '../errors.js';
import type { OrganizationRecord } from '../organizations/repo.js';
import type { Factor } from '../shared/factor.js';
import { providerKey } from './connections.js';
import type { SsoConnectionRecord } from './repo.js';

/**
 * Whether a session's proofs satisfy the organization's `sso_required`: an `oauth` factor made
 * through its own connection. Where a session becomes the organization's (the organization-scoped
 * exchange) is where this is enforced; a plain App session names no organization.
 */
export function ssoRequirementMet(
  organization: Pick<OrganizationRecord, 'settings'>,
  connection: Pick<SsoConnectionRecord, 'id'> | null,
  factors: readonly Factor[],
): boolean {
  if (!organization.settings.sso_required) return true;
  if (!connection) return false;
  const key = providerKey(connection.id);
  return factors.some((f) => f.type === 'oauth' && f.method.provider_id === key);
}

/** Refuses (403 `sso_required`) a session for the organization made without its SSO. */
export function requireSso(...args: Parameters<typeof ssoRequirementMet>): void {
  if (!ssoRequirementMet(...args)) throw new LatchkeyError('sso_required');
}
