import { LatchkeyError } from '../errors.js';
import { BUILT_IN_ROLES, type OrganizationsAppSettings } from '../shared/organization-roles.js';

/** The roles an App has: the built-in ones, then its own. */
const rolesOf = (settings: OrganizationsAppSettings): Record<string, readonly string[]> => ({
  ...settings.roles,
  ...BUILT_IN_ROLES,
});

/** Refuses a role the App does not have (400 `unknown_role`, naming the field at fault). */
export function checkRole(role: string, settings: OrganizationsAppSettings, field: string) {
  if (!Object.hasOwn(rolesOf(settings), role))
    throw new LatchkeyError('unknown_role', `No role '${role}' in this App.`, { field });
}

/**
 * What `roles` grant as the App defines them now, sorted: a role the App has since removed
 * grants nothing, and `*` (an owner's) stands for every permission.
 */
export function permissionsOf(roles: readonly string[], settings: OrganizationsAppSettings): string[] {
  const known = rolesOf(settings);
  const granted = new Set<string>();
  for (const role of roles) if (Object.hasOwn(known, role)) for (const p of known[role] ?? []) granted.add(p);
  return granted.has('*') ? ['*'] : [...granted].sort();
}
