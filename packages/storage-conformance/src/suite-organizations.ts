import type {
  OrganizationInvitationRecord,
  OrganizationMemberRecord,
  OrganizationRecord,
  Storage,
} from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { appWithUser, makeUser, NOW, uid } from './fixtures.js';

export function makeOrganization(appId: string, over: Partial<OrganizationRecord> = {}): OrganizationRecord {
  return {
    id: uid('org'),
    app_id: appId,
    name: 'Acme',
    slug: uid('acme').toLowerCase().replace(/_/g, '-'),
    allowed_email_domains: ['acme.com'],
    settings: {
      who_can_invite: 'admins',
      default_role: 'member',
      allowed_sign_in_methods: [],
      join_by_domain: false,
      sso_required: false,
    },
    created_at: NOW,
    updated_at: NOW,
    ...over,
  };
}

export function makeMember(
  organization: OrganizationRecord,
  userId: string,
  over: Partial<OrganizationMemberRecord> = {},
): OrganizationMemberRecord {
  return {
    id: uid('orgmember'),
    app_id: organization.app_id,
    organization_id: organization.id,
    user_id: userId,
    roles: ['member'],
    created_at: NOW,
    updated_at: NOW,
    ...over,
  };
}

export function makeInvitation(
  organization: OrganizationRecord,
  over: Partial<OrganizationInvitationRecord> = {},
): OrganizationInvitationRecord {
  return {
    id: uid('orginv'),
    app_id: organization.app_id,
    organization_id: organization.id,
    email: `${uid('invitee').toLowerCase()}@example.com`,
    roles: ['member'],
    token_hash: uid('hash'),
    expires_at: NOW + 3600,
    accepted_at: null,
    revoked_at: null,
    created_at: NOW,
    ...over,
  };
}

/**
 * Organizations: slugs unique per App, one membership per user and organization however many
 * inserts race, each App seeing only its own, and the last owner kept through concurrent
 * demotions and removals.
 */
export function organizationRepoCases(storage: () => Storage, parallelism = 1): void {
  const racers = Math.max(20, parallelism * 2);
  const setup = async () => {
    const { s, app, user } = await appWithUser(storage());
    const organization = makeOrganization(app.id);
    expect(await s.organizations.insert(organization)).toEqual({ inserted: true });
    return { s, app, user, organization };
  };
  const addUser = async (s: Storage, appId: string) => {
    const user = makeUser(appId);
    await s.users.insert(user);
    return user;
  };

  describe('organizations', () => {
    it('stores an organization as given; a slug is one per App, reusable by another App', async () => {
      const { s, app, organization } = await setup();
      expect(await s.organizations.get(app.id, organization.id)).toEqual(organization);
      expect(await s.organizations.insert(makeOrganization(app.id, { slug: organization.slug }))).toEqual({
        inserted: false,
      });
      const other = await appWithUser(s);
      expect(await s.organizations.get(other.app.id, organization.id)).toBeNull();
      expect(
        await s.organizations.insert(makeOrganization(other.app.id, { slug: organization.slug })),
      ).toEqual({
        inserted: true,
      });
    });

    it('updates what the patch names, refuses a taken slug, and only in its App', async () => {
      const { s, app, organization } = await setup();
      const second = makeOrganization(app.id);
      await s.organizations.insert(second);
      const settings = { ...organization.settings, who_can_invite: 'members' as const };
      expect(
        await s.organizations.update(app.id, organization.id, {
          name: 'Acme Corp',
          settings,
          updated_at: NOW + 5,
        }),
      ).toEqual({
        ok: true,
        organization: { ...organization, name: 'Acme Corp', settings, updated_at: NOW + 5 },
      });
      expect(
        await s.organizations.update(app.id, second.id, { slug: organization.slug, updated_at: NOW + 6 }),
      ).toEqual({
        ok: false,
        reason: 'slug_taken',
      });
      const other = await appWithUser(s);
      expect(
        await s.organizations.update(other.app.id, organization.id, { name: 'Stolen', updated_at: NOW }),
      ).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect((await s.organizations.get(app.id, organization.id))?.name).toBe('Acme Corp');
    });

    it('lists by id a page at a time, or the organizations of one user', async () => {
      const { s, app, user } = await setup();
      const more = [makeOrganization(app.id), makeOrganization(app.id)];
      for (const o of more) await s.organizations.insert(o);
      await s.organizations.insertMember(makeMember(more[1]!, user.id));
      const all = await s.organizations.list(app.id, { limit: 2 });
      expect(all.organizations).toHaveLength(2);
      const rest = await s.organizations.list(app.id, { limit: 2, after: all.next_cursor! });
      expect(rest.next_cursor).toBeNull();
      const ids = [...all.organizations, ...rest.organizations].map((o) => o.id);
      expect(ids).toEqual([...ids].sort());
      expect(ids).toHaveLength(3);
      expect((await s.organizations.list(app.id, { userId: user.id, limit: 10 })).organizations).toEqual([
        more[1],
      ]);
      const other = await appWithUser(s);
      expect(
        (await s.organizations.list(other.app.id, { userId: user.id, limit: 10 })).organizations,
      ).toEqual([]);
    });

    it('lists the joinable: join_by_domain on, a domain matched exactly, not yet a member, in its App only', async () => {
      const { s, app, user } = await setup();
      const joining = (domains: string[], on = true) =>
        makeOrganization(app.id, {
          allowed_email_domains: domains,
          settings: { ...makeOrganization(app.id).settings, join_by_domain: on },
        });
      const [a, b, off, sub, member] = [
        joining(['acme.com']),
        joining(['other.org', 'acme.com']),
        joining(['acme.com'], false),
        joining(['eu.acme.com']),
        joining(['acme.com']),
      ] as const;
      for (const o of [a, b, off, sub, member]) await s.organizations.insert(o);
      await s.organizations.insertMember(makeMember(member, user.id));
      const query = { domains: ['acme.com'], userId: user.id };
      const first = await s.organizations.listJoinable(app.id, { ...query, limit: 1 });
      expect(first.organizations).toHaveLength(1);
      const rest = await s.organizations.listJoinable(app.id, {
        ...query,
        limit: 10,
        after: first.next_cursor!,
      });
      expect(rest.next_cursor).toBeNull();
      expect([...first.organizations, ...rest.organizations]).toEqual(
        [a, b].sort((x, y) => (x.id < y.id ? -1 : 1)),
      );
      expect(
        (
          await s.organizations.listJoinable(app.id, {
            domains: ['other.org', 'eu.acme.com'],
            userId: user.id,
            limit: 10,
          })
        ).organizations
          .map((o) => o.id)
          .sort(),
      ).toEqual([b.id, sub.id].sort());
      expect(
        (await s.organizations.listJoinable(app.id, { domains: [], userId: user.id, limit: 10 }))
          .organizations,
      ).toEqual([]);
      const other = await appWithUser(s);
      expect(
        (await s.organizations.listJoinable(other.app.id, { ...query, userId: other.user.id, limit: 10 }))
          .organizations,
      ).toEqual([]);
    });

    it('deletes an organization with its members, in its App only', async () => {
      const { s, app, user, organization } = await setup();
      const member = makeMember(organization, user.id);
      await s.organizations.insertMember(member);
      const other = await appWithUser(s);
      expect(await s.organizations.delete(other.app.id, organization.id)).toBeNull();
      expect(await s.organizations.delete(app.id, organization.id)).toEqual(organization);
      expect(await s.organizations.getMember(app.id, organization.id, member.id)).toBeNull();
      expect(await s.organizations.delete(app.id, organization.id)).toBeNull();
    });
  });

  describe('organization members', () => {
    it('adds a user once per organization, and refuses an unknown user or organization', async () => {
      const { s, app, user, organization } = await setup();
      const member = makeMember(organization, user.id, { roles: ['admin', 'billing'] });
      expect(await s.organizations.insertMember(member)).toEqual({ inserted: true });
      expect(await s.organizations.getMember(app.id, organization.id, member.id)).toEqual(member);
      expect(await s.organizations.insertMember(makeMember(organization, user.id))).toEqual({
        inserted: false,
      });
      await expect(s.organizations.insertMember(makeMember(organization, uid('user')))).rejects.toMatchObject(
        {
          errorType: 'user_not_found',
        },
      );
      // Another App's user, or an organization of another App: never joined across Apps.
      const other = await appWithUser(s);
      await expect(
        s.organizations.insertMember(makeMember(organization, other.user.id)),
      ).rejects.toMatchObject({
        errorType: 'user_not_found',
      });
      await expect(
        s.organizations.insertMember({ ...makeMember(organization, other.user.id), app_id: other.app.id }),
      ).rejects.toMatchObject({ errorType: 'organization_not_found' });
      expect(await s.organizations.getMember(other.app.id, organization.id, member.id)).toBeNull();
    });

    it(`keeps one membership of ${racers} concurrent inserts for one user`, async () => {
      const { s, user, organization } = await setup();
      const results = await Promise.all(
        Array.from({ length: racers }, () => s.organizations.insertMember(makeMember(organization, user.id))),
      );
      expect(results.filter((r) => r.inserted)).toHaveLength(1);
      const page = await s.organizations.listMembers(organization.app_id, organization.id, { limit: 100 });
      expect(page.members.map((m) => m.user_id)).toEqual([user.id]);
    });

    it('pages members by id', async () => {
      const { s, app, user, organization } = await setup();
      await s.organizations.insertMember(makeMember(organization, user.id));
      for (let i = 0; i < 2; i++)
        await s.organizations.insertMember(makeMember(organization, (await addUser(s, app.id)).id));
      const first = await s.organizations.listMembers(app.id, organization.id, { limit: 2 });
      const second = await s.organizations.listMembers(app.id, organization.id, {
        limit: 2,
        after: first.next_cursor!,
      });
      expect([...first.members, ...second.members]).toHaveLength(3);
      expect(second.next_cursor).toBeNull();
    });

    it('changes roles and removes members, but never the last owner', async () => {
      const { s, app, user, organization } = await setup();
      const owner = makeMember(organization, user.id, { roles: ['owner'] });
      await s.organizations.insertMember(owner);
      expect(
        await s.organizations.updateMemberRoles(app.id, organization.id, owner.id, ['admin'], NOW + 1),
      ).toEqual({
        ok: false,
        reason: 'last_owner',
      });
      expect(await s.organizations.deleteMember(app.id, organization.id, owner.id)).toEqual({
        ok: false,
        reason: 'last_owner',
      });
      const second = makeMember(organization, (await addUser(s, app.id)).id);
      await s.organizations.insertMember(second);
      expect(
        await s.organizations.updateMemberRoles(
          app.id,
          organization.id,
          second.id,
          ['owner', 'billing'],
          NOW + 2,
        ),
      ).toEqual({ ok: true, member: { ...second, roles: ['owner', 'billing'], updated_at: NOW + 2 } });
      expect(await s.organizations.deleteMember(app.id, organization.id, owner.id)).toEqual({
        ok: true,
        member: owner,
      });
      expect(await s.organizations.deleteMember(app.id, organization.id, owner.id)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      const other = await appWithUser(s);
      expect(
        await s.organizations.updateMemberRoles(other.app.id, organization.id, second.id, ['member'], NOW),
      ).toEqual({
        ok: false,
        reason: 'not_found',
      });
    });

    it(`leaves one owner after ${racers} concurrent demotions and removals of the last two`, async () => {
      // Rounds, each on a fresh organization: one round's overlap can be too short to show a bug.
      for (let round = 0; round < 5; round++) {
        const { s, app, user, organization } = await setup();
        const owners = [
          makeMember(organization, user.id, { roles: ['owner'] }),
          makeMember(organization, (await addUser(s, app.id)).id, { roles: ['owner'] }),
        ];
        for (const o of owners) await s.organizations.insertMember(o);
        const results = await Promise.all(
          Array.from({ length: racers }, (_, i) => {
            const target = owners[i % 2]!.id;
            return i % 4 < 2
              ? s.organizations.updateMemberRoles(app.id, organization.id, target, ['member'], NOW + i)
              : s.organizations.deleteMember(app.id, organization.id, target);
          }),
        );
        expect(results.some((r) => !r.ok && r.reason === 'last_owner')).toBe(true);
        const page = await s.organizations.listMembers(app.id, organization.id, { limit: 10 });
        expect(page.members.filter((m) => m.roles.includes('owner'))).toHaveLength(1);
      }
    });

    it('stores invitations, lists the open ones, revokes once and spends a token once, in its App only', async () => {
      const { s, app, organization } = await setup();
      const invitation = makeInvitation(organization);
      await s.organizations.insertInvitation(invitation);
      const other = await appWithUser(s);
      await expect(
        s.organizations.insertInvitation(makeInvitation({ ...organization, app_id: other.app.id })),
      ).rejects.toMatchObject({ errorType: 'organization_not_found' });
      expect(await s.organizations.listInvitations(app.id, organization.id, { limit: 10 })).toEqual({
        invitations: [invitation],
        next_cursor: null,
      });
      expect(await s.organizations.listInvitations(other.app.id, organization.id, { limit: 10 })).toEqual({
        invitations: [],
        next_cursor: null,
      });
      // Another App neither spends nor revokes it.
      expect(await s.organizations.consumeInvitation(other.app.id, invitation.token_hash, NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(
        await s.organizations.revokeInvitation(other.app.id, organization.id, invitation.id, NOW),
      ).toBeNull();

      expect(await s.organizations.consumeInvitation(app.id, invitation.token_hash, NOW + 1)).toEqual({
        ok: true,
        invitation: { ...invitation, accepted_at: NOW + 1 },
      });
      expect(await s.organizations.consumeInvitation(app.id, invitation.token_hash, NOW + 2)).toEqual({
        ok: false,
        reason: 'used',
      });
      expect(await s.organizations.revokeInvitation(app.id, organization.id, invitation.id, NOW)).toBeNull();

      const revoked = makeInvitation(organization);
      await s.organizations.insertInvitation(revoked);
      expect(await s.organizations.revokeInvitation(app.id, organization.id, revoked.id, NOW + 3)).toEqual({
        ...revoked,
        revoked_at: NOW + 3,
      });
      expect(await s.organizations.consumeInvitation(app.id, revoked.token_hash, NOW + 4)).toEqual({
        ok: false,
        reason: 'revoked',
      });
      const expired = makeInvitation(organization, { expires_at: NOW + 10 });
      await s.organizations.insertInvitation(expired);
      expect(await s.organizations.consumeInvitation(app.id, expired.token_hash, NOW + 10)).toEqual({
        ok: false,
        reason: 'expired',
      });
      // Neither accepted nor revoked: the expired one is still listed (the service shows its status).
      expect(
        (await s.organizations.listInvitations(app.id, organization.id, { limit: 10 })).invitations.map(
          (i) => i.id,
        ),
      ).toEqual([expired.id]);
      expect(await s.organizations.consumeInvitation(app.id, 'no-such-hash', NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      // The organization's deletion takes its invitations.
      await s.organizations.delete(app.id, organization.id);
      expect(await s.organizations.consumeInvitation(app.id, expired.token_hash, NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
    });

    it('leaves an invitation unspent while its organization refuses a sign-in by link', async () => {
      const { s, app, organization } = await setup();
      const invitation = makeInvitation(organization);
      await s.organizations.insertInvitation(invitation);
      const settings = (over: Partial<OrganizationRecord['settings']>) =>
        s.organizations.update(app.id, organization.id, {
          settings: { ...organization.settings, ...over },
          updated_at: NOW,
        });
      await settings({ sso_required: true, allowed_sign_in_methods: ['magic_link'] });
      expect(await s.organizations.consumeInvitation(app.id, invitation.token_hash, NOW)).toEqual({
        ok: false,
        reason: 'sso_required',
      });
      await settings({ allowed_sign_in_methods: ['email_otp', 'sso'] });
      expect(await s.organizations.consumeInvitation(app.id, invitation.token_hash, NOW)).toEqual({
        ok: false,
        reason: 'sign_in_method_not_allowed',
      });
      // Its own state comes first: a used, revoked or expired invitation says so.
      expect(await s.organizations.consumeInvitation(app.id, invitation.token_hash, NOW + 3600)).toEqual({
        ok: false,
        reason: 'expired',
      });
      expect(
        (await s.organizations.listInvitations(app.id, organization.id, { limit: 10 })).invitations,
      ).toEqual([invitation]);
      await settings({ allowed_sign_in_methods: ['email_otp', 'magic_link'] });
      expect(await s.organizations.consumeInvitation(app.id, invitation.token_hash, NOW + 1)).toEqual({
        ok: true,
        invitation: { ...invitation, accepted_at: NOW + 1 },
      });
    });

    it(`spends an invitation once of ${racers} concurrent spends`, async () => {
      const { s, app, organization } = await setup();
      const invitation = makeInvitation(organization);
      await s.organizations.insertInvitation(invitation);
      const results = await Promise.all(
        Array.from({ length: racers }, (_, i) =>
          s.organizations.consumeInvitation(app.id, invitation.token_hash, NOW + i),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok && r.reason === 'used')).toHaveLength(racers - 1);
    });
  });
}
