import type { ApiKeyKind } from '../apps/repo.js';
import { channels } from '../contacts/channels.js';
import { findOrCreateByContact } from '../contacts/find-or-create.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { SessionService } from '../sessions/service.js';
import type { OrganizationsAppSettings } from '../shared/organization-roles.js';
import { callerUserId } from './caller.js';
import { domainJoinService } from './domain-join.js';
import { invitationService } from './invitations.js';
import {
  type MemberChanged,
  type OrganizationMemberRecord,
  type OrganizationRecord,
  OWNER_ROLE,
} from './repo.js';
import { checkRole, permissionsOf } from './roles.js';
import {
  type AddMemberRequest,
  type CreateOrganizationRequest,
  type ListMembersQuery,
  type ListOrganizationsQuery,
  type MemberView,
  type OrganizationSettings,
  type OrganizationView,
  organizationSettingsSchema,
  type UpdateOrganizationRequest,
} from './schema.js';
import { organizationSessions } from './session-exchange.js';
import { checkSsoRequired, type SsoConnectionLookup } from './sso-required.js';

export type OrganizationService = ReturnType<typeof organizationService>;
export type { OrganizationSessions } from './session-exchange.js';

const DEFAULT_PAGE = 100;

const organizationView = (o: OrganizationRecord): OrganizationView => ({
  organization_id: o.id,
  name: o.name,
  slug: o.slug,
  allowed_email_domains: o.allowed_email_domains,
  settings: o.settings,
  created_at: o.created_at,
  updated_at: o.updated_at,
});

const memberView = (m: OrganizationMemberRecord, roles: OrganizationsAppSettings): MemberView => ({
  member_id: m.id,
  organization_id: m.organization_id,
  user_id: m.user_id,
  roles: m.roles,
  permissions: permissionsOf(m.roles, roles),
  created_at: m.created_at,
  updated_at: m.updated_at,
});

/**
 * What a user creating an organization for themselves may not do: unless the App allows it at
 * all, name another owner, or claim email domains (a domain admits strangers by joining, so only
 * the App's backend, which can check who owns it, sets one).
 */
function checkUserCreation(input: CreateOrganizationRequest, settings: OrganizationsAppSettings) {
  if (!settings.allow_user_creation) throw new LatchkeyError('organization_creation_not_allowed');
  for (const field of ['owner_user_id', 'allowed_email_domains'] as const)
    if (input[field] !== undefined) throw new LatchkeyError('secret_key_required', undefined, { field });
}

/** What a refused member change answers. */
const memberChangeError = (reason: Exclude<MemberChanged, { ok: true }>['reason']) =>
  new LatchkeyError(reason === 'last_owner' ? 'last_owner' : 'organization_member_not_found');

export function organizationService(k: Kernel, sessions: SessionService) {
  const appRoles = async (appId: string) => (await k.app(appId)).settings.organizations;
  let ssoConnectionOf: SsoConnectionLookup | undefined;

  const mustGet = async (appId: string, organizationId: string) => {
    const organization = await k.storage.organizations.get(appId, organizationId);
    if (!organization) throw new LatchkeyError('organization_not_found');
    return organization;
  };

  const checkRoles = (roles: readonly string[], settings: OrganizationsAppSettings) => {
    roles.forEach((role, i) => {
      checkRole(role, settings, `roles.${i}`);
    });
  };

  const checkSettings = (settings: OrganizationSettings, roles: OrganizationsAppSettings) =>
    checkRole(settings.default_role, roles, 'settings.default_role');

  return {
    /**
     * Creates an organization; with `owner_user_id`, that user is its first owner, in the same
     * transaction. With the public token, the caller's session names the owner instead, when the
     * App allows users to create organizations.
     */
    async create(appId: string, input: CreateOrganizationRequest, keyKind: ApiKeyKind = 'secret') {
      const roles = await appRoles(appId); // app_not_found for an App that does not exist
      if (keyKind === 'public') checkUserCreation(input, roles);
      const creator = await callerUserId(sessions, appId, input, keyKind);
      const settings = organizationSettingsSchema.parse(input.settings ?? {});
      checkSettings(settings, roles);
      const now = k.now();
      const organization: OrganizationRecord = {
        id: k.id('org'),
        app_id: appId,
        name: input.name,
        slug: input.slug,
        allowed_email_domains: input.allowed_email_domains ?? [],
        settings,
        created_at: now,
        updated_at: now,
      };
      const ownerUserId = creator ?? input.owner_user_id;
      await k.storage.transaction(async (tx) => {
        if (!(await tx.organizations.insert(organization)).inserted)
          throw new LatchkeyError('organization_slug_taken', undefined, { field: 'slug' });
        if (ownerUserId === undefined) return;
        const owner: OrganizationMemberRecord = {
          id: k.id('orgmember'),
          app_id: appId,
          organization_id: organization.id,
          user_id: ownerUserId,
          roles: [OWNER_ROLE],
          created_at: now,
          updated_at: now,
        };
        // A new organization has no members: the insert can only fail on an unknown user.
        await tx.organizations.insertMember(owner, 'created').catch((err: unknown) => {
          if (err instanceof LatchkeyError && err.errorType === 'user_not_found')
            throw new LatchkeyError('user_not_found', undefined, { field: 'owner_user_id' });
          throw err;
        });
      });
      return organizationView(organization);
    },

    async get(appId: string, organizationId: string) {
      return organizationView(await mustGet(appId, organizationId));
    },

    async list(appId: string, query: ListOrganizationsQuery) {
      const page = await k.storage.organizations.list(appId, {
        userId: query.user_id,
        limit: query.limit ?? DEFAULT_PAGE,
        after: query.cursor,
      });
      return { organizations: page.organizations.map(organizationView), next_cursor: page.next_cursor };
    },

    /** Changes what the request names; settings fields not sent keep their values. */
    async update(appId: string, organizationId: string, input: UpdateOrganizationRequest) {
      const current = await mustGet(appId, organizationId);
      const sent = Object.fromEntries(
        Object.entries(input.settings ?? {}).filter(([, v]) => v !== undefined),
      );
      const settings = input.settings ? { ...current.settings, ...sent } : undefined;
      if (settings) checkSettings(settings, await appRoles(appId));
      if (settings) await checkSsoRequired(ssoConnectionOf, appId, organizationId, settings);
      const updated = await k.storage.organizations.update(appId, organizationId, {
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.slug === undefined ? {} : { slug: input.slug }),
        ...(input.allowed_email_domains === undefined
          ? {}
          : { allowed_email_domains: input.allowed_email_domains }),
        ...(settings ? { settings } : {}),
        updated_at: k.now(),
      });
      if (updated.ok) return organizationView(updated.organization);
      if (updated.reason === 'slug_taken')
        throw new LatchkeyError('organization_slug_taken', undefined, { field: 'slug' });
      throw new LatchkeyError('organization_not_found');
    },

    /** Deletes the organization and its memberships (the users stay). */
    async delete(appId: string, organizationId: string) {
      const now = k.now();
      // Its sessions end with it, in one transaction: none outlives the organization it names.
      const removed = await k.storage.transaction(async (tx) => {
        const deleted = await tx.organizations.delete(appId, organizationId);
        if (deleted) await tx.sessions.revokeByOrganization(appId, organizationId, now);
        return deleted;
      });
      if (!removed) throw new LatchkeyError('organization_not_found');
      return { organization_id: removed.id };
    },

    /**
     * Adds a user as a member: by id, or by email, creating the user (pending until they sign
     * in) when the App has none with that address.
     */
    async addMember(appId: string, organizationId: string, input: AddMemberRequest) {
      if (input.user_id !== undefined && input.email !== undefined)
        throw new LatchkeyError('invalid_field', 'Send user_id or email, not both.', { field: 'email' });
      if (input.user_id === undefined && input.email === undefined)
        throw new LatchkeyError('missing_field', 'Send user_id or email.', { field: 'user_id' });
      const organization = await mustGet(appId, organizationId);
      const settings = await appRoles(appId);
      const roles = input.roles ?? [organization.settings.default_role];
      checkRoles(roles, settings);
      let userId = input.user_id;
      let userCreated = false;
      if (userId === undefined) {
        const address = await channels.email.normalize(input.email ?? '');
        const found = await findOrCreateByContact(k, appId, channels.email, address, { pending: true });
        userId = found.contact.user_id;
        userCreated = found.user_created;
      }
      const now = k.now();
      const member: OrganizationMemberRecord = {
        id: k.id('orgmember'),
        app_id: appId,
        organization_id: organization.id,
        user_id: userId,
        roles,
        created_at: now,
        updated_at: now,
      };
      if (!(await k.storage.organizations.insertMember(member, 'added')).inserted)
        throw new LatchkeyError('organization_member_exists');
      return { ...memberView(member, settings), user_created: userCreated };
    },

    async getMember(appId: string, organizationId: string, memberId: string) {
      const member = await k.storage.organizations.getMember(appId, organizationId, memberId);
      if (!member) throw new LatchkeyError('organization_member_not_found');
      return memberView(member, await appRoles(appId));
    },

    async listMembers(appId: string, organizationId: string, query: ListMembersQuery) {
      await mustGet(appId, organizationId);
      const page = await k.storage.organizations.listMembers(appId, organizationId, {
        limit: query.limit ?? DEFAULT_PAGE,
        after: query.cursor,
      });
      const settings = await appRoles(appId);
      return { members: page.members.map((m) => memberView(m, settings)), next_cursor: page.next_cursor };
    },

    /** Replaces the member's roles; the last owner keeps `owner` (409 `last_owner`). */
    async updateMember(appId: string, organizationId: string, memberId: string, input: { roles: string[] }) {
      const settings = await appRoles(appId);
      checkRoles(input.roles, settings);
      const now = k.now();
      // The member's organization sessions carry the old roles in their JWTs: they end with them.
      const changed = await k.storage.transaction(async (tx) => {
        const c = await tx.organizations.updateMemberRoles(appId, organizationId, memberId, input.roles, now);
        if (c.ok) await tx.sessions.revokeByOrganization(appId, organizationId, now, c.member.user_id);
        return c;
      });
      if (!changed.ok) throw memberChangeError(changed.reason);
      return memberView(changed.member, settings);
    },

    /** Removes the member (the user stays); never the last owner (409 `last_owner`). */
    async removeMember(appId: string, organizationId: string, memberId: string) {
      const now = k.now();
      const changed = await k.storage.transaction(async (tx) => {
        const c = await tx.organizations.deleteMember(appId, organizationId, memberId);
        if (c.ok) await tx.sessions.revokeByOrganization(appId, organizationId, now, c.member.user_id);
        return c;
      });
      if (!changed.ok) throw memberChangeError(changed.reason);
      return { member_id: changed.member.id, organization_id: changed.member.organization_id };
    },

    /** Verified-domain joining (docs/organizations.md, "Joining by email domain"). */
    domains: domainJoinService(k, sessions, organizationView),

    /** Invitations by email link (docs/organizations.md, "Invitations"). */
    invitations: invitationService(k, sessions),

    /** Sessions scoped to an organization (docs/organizations.md, "Sessions in an organization"). */
    sessions: organizationSessions(k, sessions, async (appId, organizationId) =>
      ssoConnectionOf ? ssoConnectionOf(appId, organizationId) : null,
    ),

    /**
     * How `sso_required` and the `sso` sign-in method learn an organization's SSO connection
     * (sso/service.ts).
     */
    knowSsoConnections(lookup: SsoConnectionLookup): void {
      ssoConnectionOf = lookup;
    },

    /** What `roles` grant in this App now (`*`: every permission), for the checks to come. */
    async permissionsOf(appId: string, roles: readonly string[]) {
      return permissionsOf(roles, await appRoles(appId));
    },
  };
}
