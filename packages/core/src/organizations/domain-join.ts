import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { CallerSessions } from './caller.js';
import type { OrganizationMemberRecord, OrganizationRecord } from './repo.js';
import { permissionsOf } from './roles.js';
import type { CallerSession, JoinableOrganizationsQuery, MemberView, OrganizationView } from './schema.js';

const DEFAULT_PAGE = 100;

/** The domain of a stored (normalised) address, lower-cased: matched exactly, never by suffix. */
const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/**
 * Verified-domain joining (docs/organizations.md, "Joining by email domain"): a signed-in user
 * whose verified email is on an organization's allowed domains may join it by themselves.
 */
export function domainJoinService(
  k: Kernel,
  sessions: CallerSessions,
  view: (o: OrganizationRecord) => OrganizationView,
) {
  /** The domains of the user's emails, the verified ones apart: only those admit. */
  const domainsOf = async (appId: string, userId: string) => {
    const emails = await k.storage.emails.listByUser(appId, userId);
    return {
      verified: [...new Set(emails.filter((e) => e.verified_at !== null).map((e) => domainOf(e.address)))],
      unverified: emails.filter((e) => e.verified_at === null).map((e) => domainOf(e.address)),
    };
  };

  return {
    /** The organizations the caller could join now, those they are a member of left out. */
    async joinable(appId: string, query: JoinableOrganizationsQuery) {
      const userId = await sessions.liveUserId(appId, query);
      const { verified } = await domainsOf(appId, userId);
      const page = await k.storage.organizations.listJoinable(appId, {
        domains: verified,
        userId,
        limit: query.limit ?? DEFAULT_PAGE,
        after: query.cursor,
      });
      return { organizations: page.organizations.map(view), next_cursor: page.next_cursor };
    },

    /**
     * Makes the caller a member with the organization's `default_role`, if it has
     * `join_by_domain` on and one of the caller's verified emails is on its allowed domains.
     */
    async join(appId: string, organizationId: string, fields: CallerSession): Promise<MemberView> {
      const organization = await k.storage.organizations.get(appId, organizationId);
      if (!organization) throw new LatchkeyError('organization_not_found');
      const userId = await sessions.liveUserId(appId, fields);
      if (organization.settings.join_by_domain !== true)
        throw new LatchkeyError(
          'organization_join_not_allowed',
          'This organization does not admit members by email domain (join_by_domain is off).',
        );
      const allowed = new Set(organization.allowed_email_domains);
      const { verified, unverified } = await domainsOf(appId, userId);
      if (!verified.some((d) => allowed.has(d)))
        throw new LatchkeyError(
          'organization_join_not_allowed',
          unverified.some((d) => allowed.has(d))
            ? "Verify your email on the organization's domain first: an unverified email admits no one."
            : "None of your verified emails is on the organization's allowed domains.",
        );
      const now = k.now();
      const member: OrganizationMemberRecord = {
        id: k.id('orgmember'),
        app_id: appId,
        organization_id: organization.id,
        user_id: userId,
        roles: [organization.settings.default_role],
        created_at: now,
        updated_at: now,
      };
      if (!(await k.storage.organizations.insertMember(member, 'domain')).inserted)
        throw new LatchkeyError('organization_member_exists');
      const settings = (await k.app(appId)).settings.organizations;
      return {
        member_id: member.id,
        organization_id: member.organization_id,
        user_id: member.user_id,
        roles: member.roles,
        permissions: permissionsOf(member.roles, settings),
        created_at: member.created_at,
        updated_at: member.updated_at,
      };
    },
  };
}
