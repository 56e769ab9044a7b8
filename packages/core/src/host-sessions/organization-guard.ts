import { LatchkeyError } from '../errors.js';
import type { SessionCheck } from '../sessions/schema.js';
import { permissionSchema } from '../shared/organization-roles.js';

/** The adapters' `organization` / `permission` options: what a route asks of an organization session. */
export interface OrganizationRequirement {
  /** `true`: any organization; a string: that organization's id. */
  organization?: boolean | string | undefined;
  /** A permission the member's roles must grant (`*`, an owner's, grants every one). */
  permission?: string | undefined;
}

/**
 * The check for a requirement, made once where the middleware is made (so a mistyped permission
 * fails there, not per request); undefined when the route asks nothing of an organization.
 * Reads only the checked session: in jwt mode its claims, so it costs no storage read.
 */
export function organizationGuard(
  need: OrganizationRequirement,
): ((auth: SessionCheck) => boolean) | undefined {
  const { organization, permission } = need;
  if ((organization === undefined || organization === false) && permission === undefined) return undefined;
  if (typeof organization === 'string' && organization.length === 0)
    throw new LatchkeyError('invalid_field', 'organization: an organization id, or true.', {
      field: 'organization',
    });
  if (permission !== undefined && !permissionSchema.safeParse(permission).success)
    throw new LatchkeyError(
      'invalid_field',
      `permission: '${permission}' is not a permission such as invoices:read.`,
      {
        field: 'permission',
      },
    );
  return (auth) => {
    if (auth.organization_id === undefined) return false;
    if (typeof organization === 'string' && auth.organization_id !== organization) return false;
    if (permission === undefined) return true;
    const held = auth.permissions ?? [];
    return held.includes('*') || held.includes(permission);
  };
}
