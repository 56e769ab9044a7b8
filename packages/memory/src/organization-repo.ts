import {
  LatchkeyError,
  type MemberChanged,
  type OrganizationInvitationRecord,
  type OrganizationMemberRecord,
  type OrganizationRecord,
  type OrganizationRepo,
  OWNER_ROLE,
} from '@latchkey/core';
import { copy } from './state.js';

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : 1);

/**
 * Each method runs alone under the memory Storage's lock, so the last-owner check and the write
 * it guards cannot interleave with another change.
 */
export function memoryOrganizationRepo(
  organizations: Map<string, OrganizationRecord>,
  members: Map<string, OrganizationMemberRecord>,
  invitations: Map<string, OrganizationInvitationRecord>,
  userExists: (appId: string, userId: string) => boolean,
): OrganizationRepo {
  const find = (appId: string, id: string) => {
    const o = organizations.get(id);
    return o && o.app_id === appId ? o : undefined;
  };
  const findMember = (appId: string, organizationId: string, memberId: string) => {
    const m = members.get(memberId);
    return m && m.app_id === appId && m.organization_id === organizationId ? m : undefined;
  };
  const membersOf = (appId: string, organizationId: string) =>
    [...members.values()]
      .filter((m) => m.app_id === appId && m.organization_id === organizationId)
      .sort(byId);
  const slugTaken = (appId: string, slug: string, exceptId?: string) =>
    [...organizations.values()].some((o) => o.app_id === appId && o.slug === slug && o.id !== exceptId);
  /** Whether `member` is an owner and no other member of its organization is. */
  const isLastOwner = (member: OrganizationMemberRecord) =>
    member.roles.includes(OWNER_ROLE) &&
    !membersOf(member.app_id, member.organization_id).some(
      (m) => m.id !== member.id && m.roles.includes(OWNER_ROLE),
    );

  return {
    async insert(organization) {
      if (slugTaken(organization.app_id, organization.slug)) return { inserted: false };
      organizations.set(organization.id, copy(organization));
      return { inserted: true };
    },
    async get(appId, organizationId) {
      const o = find(appId, organizationId);
      return o ? copy(o) : null;
    },
    async list(appId, { userId, limit, after }) {
      const memberOf =
        userId === undefined
          ? undefined
          : new Set(
              [...members.values()]
                .filter((m) => m.app_id === appId && m.user_id === userId)
                .map((m) => m.organization_id),
            );
      const all = [...organizations.values()]
        .filter(
          (o) =>
            o.app_id === appId && (!memberOf || memberOf.has(o.id)) && (after === undefined || o.id > after),
        )
        .sort(byId);
      const page = all.slice(0, limit);
      return { organizations: page.map(copy), next_cursor: all.length > limit ? page.at(-1)!.id : null };
    },
    async listJoinable(appId, { domains, userId, limit, after }) {
      const memberOf = new Set(
        [...members.values()]
          .filter((m) => m.app_id === appId && m.user_id === userId)
          .map((m) => m.organization_id),
      );
      const all = [...organizations.values()]
        .filter(
          (o) =>
            o.app_id === appId &&
            o.settings.join_by_domain === true &&
            o.allowed_email_domains.some((d) => domains.includes(d)) &&
            !memberOf.has(o.id) &&
            (after === undefined || o.id > after),
        )
        .sort(byId);
      const page = all.slice(0, limit);
      return { organizations: page.map(copy), next_cursor: all.length > limit ? page.at(-1)!.id : null };
    },
    async update(appId, organizationId, update) {
      const o = find(appId, organizationId);
      if (!o) return { ok: false, reason: 'not_found' };
      if (update.slug !== undefined && slugTaken(appId, update.slug, o.id))
        return { ok: false, reason: 'slug_taken' };
      const next: OrganizationRecord = {
        ...o,
        ...Object.fromEntries(Object.entries(update).filter(([, v]) => v !== undefined)),
      };
      organizations.set(o.id, copy(next));
      return { ok: true, organization: copy(next) };
    },
    async delete(appId, organizationId) {
      const o = find(appId, organizationId);
      if (!o) return null;
      for (const m of membersOf(appId, organizationId)) members.delete(m.id);
      for (const i of invitations.values())
        if (i.app_id === appId && i.organization_id === organizationId) invitations.delete(i.id);
      organizations.delete(o.id);
      return copy(o);
    },

    async insertMember(member) {
      if (!find(member.app_id, member.organization_id)) throw new LatchkeyError('organization_not_found');
      if (!userExists(member.app_id, member.user_id)) throw new LatchkeyError('user_not_found');
      if (membersOf(member.app_id, member.organization_id).some((m) => m.user_id === member.user_id))
        return { inserted: false };
      members.set(member.id, copy(member));
      return { inserted: true };
    },
    async getMember(appId, organizationId, memberId) {
      const m = findMember(appId, organizationId, memberId);
      return m ? copy(m) : null;
    },
    async listMembers(appId, organizationId, { limit, after }) {
      const all = membersOf(appId, organizationId).filter((m) => after === undefined || m.id > after);
      const page = all.slice(0, limit);
      return { members: page.map(copy), next_cursor: all.length > limit ? page.at(-1)!.id : null };
    },
    async updateMemberRoles(appId, organizationId, memberId, roles, now): Promise<MemberChanged> {
      const m = findMember(appId, organizationId, memberId);
      if (!m) return { ok: false, reason: 'not_found' };
      if (!roles.includes(OWNER_ROLE) && isLastOwner(m)) return { ok: false, reason: 'last_owner' };
      const next = { ...m, roles: [...roles], updated_at: now };
      members.set(m.id, copy(next));
      return { ok: true, member: copy(next) };
    },
    async deleteMember(appId, organizationId, memberId): Promise<MemberChanged> {
      const m = findMember(appId, organizationId, memberId);
      if (!m) return { ok: false, reason: 'not_found' };
      if (isLastOwner(m)) return { ok: false, reason: 'last_owner' };
      members.delete(m.id);
      return { ok: true, member: copy(m) };
    },
    async getMemberByUser(appId, organizationId, userId) {
      const m = membersOf(appId, organizationId).find((x) => x.user_id === userId);
      return m ? copy(m) : null;
    },

    async insertInvitation(invitation) {
      if (!find(invitation.app_id, invitation.organization_id))
        throw new LatchkeyError('organization_not_found');
      invitations.set(invitation.id, copy(invitation));
    },
    async listInvitations(appId, organizationId, { limit, after }) {
      const all = [...invitations.values()]
        .filter(
          (i) =>
            i.app_id === appId &&
            i.organization_id === organizationId &&
            i.accepted_at === null &&
            i.revoked_at === null &&
            (after === undefined || i.id > after),
        )
        .sort(byId);
      const page = all.slice(0, limit);
      return { invitations: page.map(copy), next_cursor: all.length > limit ? page.at(-1)!.id : null };
    },
    async revokeInvitation(appId, organizationId, invitationId, now) {
      const i = invitations.get(invitationId);
      if (!i || i.app_id !== appId || i.organization_id !== organizationId) return null;
      if (i.accepted_at !== null || i.revoked_at !== null) return null;
      const next = { ...i, revoked_at: now };
      invitations.set(i.id, copy(next));
      return copy(next);
    },
    async consumeInvitation(appId, tokenHash, now) {
      const i = [...invitations.values()].find((x) => x.app_id === appId && x.token_hash === tokenHash);
      if (!i) return { ok: false, reason: 'not_found' };
      if (i.accepted_at !== null) return { ok: false, reason: 'used' };
      if (i.revoked_at !== null) return { ok: false, reason: 'revoked' };
      if (i.expires_at <= now) return { ok: false, reason: 'expired' };
      const settings = organizations.get(i.organization_id)?.settings;
      if (settings?.sso_required) return { ok: false, reason: 'sso_required' };
      const methods = settings?.allowed_sign_in_methods ?? [];
      if (methods.length > 0 && !methods.includes('magic_link'))
        return { ok: false, reason: 'sign_in_method_not_allowed' };
      const next = { ...i, accepted_at: now };
      invitations.set(i.id, copy(next));
      return { ok: true, invitation: copy(next) };
    },
  };
}
