import { beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from './helpers.js';
import { expectError, INVITE, organizationTestbed } from './organization-testbed.js';
import { storageBackends } from './storage-backends.js';

/**
 * What a signed-in user (session and public token) may do with organizations for themselves:
 * join by a verified email domain, create one, invite as `who_can_invite` allows; and the limit
 * on invitations.
 */
describe.each(storageBackends())('organizations for signed-in users on $name', (backend) => {
  const bed = organizationTestbed(backend);
  const { sender, clock, events } = bed;

  let n = 0;
  const unique = () => `${++n}-${Math.random().toString(36).slice(2, 8)}`;
  type Caller = { user_id: string; session_token: string; session_jwt: string };
  /** A user signed in by an email passcode: the address is verified. */
  const signIn = async (email: string, app = bed.t): Promise<Caller> => {
    const send = await app.call('POST', '/v1/auth/otps/email/login_or_create', { email }, app.public_token);
    expect(send.status).toBe(200);
    const verify = await app.call(
      'POST',
      '/v1/auth/otps/verify',
      { method_id: send.body.method_id, otp: sender.lastCode(email.toLowerCase()), session_expires_in: 60 },
      app.public_token,
    );
    expect(verify.status).toBe(200);
    const { user_id, session_token, session_jwt } = verify.body;
    return { user_id, session_token, session_jwt };
  };
  const createOrg = async (body: Record<string, unknown> = {}, app = bed.t) => {
    const res = await app.call('POST', '/v1/organizations', {
      name: 'Acme',
      slug: `acme-${unique()}`,
      ...body,
    });
    expect(res.status).toBe(200);
    return res.body.organization_id as string;
  };
  const addedEvent = (orgId: string, userId: string) =>
    events.find(
      (e) =>
        e.type === 'organization.member.added' &&
        e.data.organization_id === orgId &&
        e.data.user_id === userId,
    );

  describe('joining by a verified email domain', () => {
    const domain = () => `acme-${unique()}.test`;
    const joinable = (caller: Partial<Caller>, app = bed.t, query = '') =>
      app.call(
        'GET',
        `/v1/organizations/joinable?session_token=${caller.session_token}${query}`,
        undefined,
        app.public_token,
      );
    const join = (orgId: string, caller: Partial<Caller>, app = bed.t) =>
      app.call(
        'POST',
        `/v1/organizations/${orgId}/join`,
        { session_token: caller.session_token },
        app.public_token,
      );

    it('lists and joins an organization on the verified domain, with the default role, once', async () => {
      const d = domain();
      const orgId = await createOrg({
        allowed_email_domains: [d.toUpperCase()],
        settings: { join_by_domain: true, default_role: 'admin' },
      });
      const off = await createOrg({ allowed_email_domains: [d] });
      const sub = await createOrg({ allowed_email_domains: [`eu.${d}`], settings: { join_by_domain: true } });
      const caller = await signIn(`alice-${unique()}@${d.toUpperCase()}`);

      const listed = await joinable(caller);
      expect(listed.status).toBe(200);
      expect(listed.body.organizations.map((o: { organization_id: string }) => o.organization_id)).toEqual([
        orgId,
      ]);
      expect(listed.body.organizations[0].settings.join_by_domain).toBe(true);
      for (const id of [off, sub])
        expect(listed.body.organizations.map((o: any) => o.organization_id)).not.toContain(id);

      const joined = await join(orgId, caller);
      expect(joined.status).toBe(200);
      expect(joined.body).toMatchObject({
        organization_id: orgId,
        user_id: caller.user_id,
        roles: ['admin'],
        member_id: expect.stringMatching(/^orgmember_/),
      });
      expect(addedEvent(orgId, caller.user_id)?.data).toMatchObject({
        joined_by: 'domain',
        roles: ['admin'],
      });
      const members = await bed.t.call('GET', `/v1/organizations/${orgId}/members`);
      expect(members.body.members.map((m: { user_id: string }) => m.user_id)).toEqual([caller.user_id]);

      // A member now: neither listed nor joined again.
      expect((await joinable(caller)).body.organizations).toEqual([]);
      expectError(await join(orgId, caller), 409, 'organization_member_exists');
      // With the JWT as well as the token.
      const byJwt = await bed.t.call(
        'GET',
        `/v1/organizations/joinable?session_jwt=${caller.session_jwt}`,
        undefined,
        bed.t.public_token,
      );
      expect(byJwt.status).toBe(200);
    });

    it('never while join_by_domain is off', async () => {
      const d = domain();
      const orgId = await createOrg({ allowed_email_domains: [d] });
      const caller = await signIn(`bob-${unique()}@${d}`);
      expect((await joinable(caller)).body.organizations).toEqual([]);
      const res = expectError(await join(orgId, caller), 403, 'organization_join_not_allowed');
      expect(res.error_message).toMatch(/join_by_domain/);
      await bed.t.call('PATCH', `/v1/organizations/${orgId}`, { settings: { join_by_domain: true } });
      expect((await join(orgId, caller)).status).toBe(200);
    });

    it('never with an unverified email on the domain', async () => {
      const d = domain();
      const orgId = await createOrg({ allowed_email_domains: [d], settings: { join_by_domain: true } });
      const caller = await signIn(`carol-${unique()}@elsewhere.test`);
      // The user also has an address on the domain, never verified.
      await bed.storage.emails.insert({
        id: `email_${unique().replace('-', '')}`,
        app_id: bed.t.app_id,
        user_id: caller.user_id,
        address: `carol-${unique()}@${d}`,
        verified_at: null,
        created_at: Math.floor(clock.now() / 1000),
      });
      expect((await joinable(caller)).body.organizations).toEqual([]);
      const res = expectError(await join(orgId, caller), 403, 'organization_join_not_allowed');
      expect(res.error_message).toMatch(/[Vv]erify/);
      expect(addedEvent(orgId, caller.user_id)).toBeUndefined();
    });

    it('never with a verified email on another domain or a subdomain (matched exactly)', async () => {
      const d = domain();
      const orgId = await createOrg({ allowed_email_domains: [d], settings: { join_by_domain: true } });
      for (const address of [`dan-${unique()}@eu.${d}`, `dan-${unique()}@${d}.evil.test`]) {
        const caller = await signIn(address);
        expect((await joinable(caller)).body.organizations).toEqual([]);
        expectError(await join(orgId, caller), 403, 'organization_join_not_allowed');
      }
    });

    it("never another App's organization (404), and only with a live session", async () => {
      const d = domain();
      const orgId = await createOrg({ allowed_email_domains: [d], settings: { join_by_domain: true } });
      const stranger = await signIn(`eve-${unique()}@${d}`, bed.other);
      expectError(await join(orgId, stranger, bed.other), 404, 'organization_not_found');
      expect((await joinable(stranger, bed.other)).body.organizations).toEqual([]);
      expectError(
        await join('org_missing', await signIn(`f-${unique()}@${d}`)),
        404,
        'organization_not_found',
      );

      const noSession = await bed.t.call('POST', `/v1/organizations/${orgId}/join`, {}, bed.t.public_token);
      expect(expectError(noSession, 400, 'missing_field').error_field).toBe('session_token');
      expectError(await join(orgId, { session_token: 'lk_session_nope' }), 401, 'session_not_found');
      expectError(
        await bed.t.call(
          'GET',
          '/v1/organizations/joinable?limit=0&session_token=x',
          undefined,
          bed.t.public_token,
        ),
        400,
        'invalid_field',
      );
      expectError(
        await bed.t.call(
          'POST',
          `/v1/organizations/${orgId}/join`,
          { session_token: 'x', extra: 1 },
          bed.t.public_token,
        ),
        400,
        'unknown_field',
      );
    });

    it('pages the joinable organizations', async () => {
      const d = domain();
      const ids = [
        await createOrg({ allowed_email_domains: [d], settings: { join_by_domain: true } }),
        await createOrg({ allowed_email_domains: ['x.test', d], settings: { join_by_domain: true } }),
      ].sort();
      const caller = await signIn(`gail-${unique()}@${d}`);
      const first = await joinable(caller, bed.t, '&limit=1');
      expect(first.body.organizations).toHaveLength(1);
      const rest = await joinable(caller, bed.t, `&limit=1&cursor=${first.body.next_cursor}`);
      expect(
        [...first.body.organizations, ...rest.body.organizations].map((o: any) => o.organization_id),
      ).toEqual(ids);
      expect(rest.body.next_cursor).toBeNull();
    });
  });

  describe('users creating organizations', () => {
    const create = (body: Record<string, unknown>, app = bed.t) =>
      app.call(
        'POST',
        '/v1/organizations',
        { name: 'Mine', slug: `mine-${unique()}`, ...body },
        app.public_token,
      );

    it('refuses unless the App allows it; then the caller becomes the owner', async () => {
      const caller = await signIn(`owner-${unique()}@example.com`);
      expectError(
        await create({ session_token: caller.session_token }),
        403,
        'organization_creation_not_allowed',
      );
      // Settings are replaced as a whole: the App's redirect_urls go with them, unused here.
      await bed.latchkey.apps.updateSettings(bed.t.app_id, { organizations: { allow_user_creation: true } });
      try {
        const res = await create({ session_jwt: caller.session_jwt });
        expect(res.status).toBe(200);
        const orgId = res.body.organization_id;
        const members = await bed.t.call('GET', `/v1/organizations/${orgId}/members`);
        expect(members.body.members).toMatchObject([{ user_id: caller.user_id, roles: ['owner'] }]);
        expect(addedEvent(orgId, caller.user_id)?.data.joined_by).toBe('created');

        // Never another owner, nor email domains (they would admit strangers by joining).
        for (const [field, value] of [
          ['owner_user_id', caller.user_id],
          ['allowed_email_domains', ['example.com']],
        ] as const) {
          const refused = await create({ session_token: caller.session_token, [field]: value });
          expect(expectError(refused, 403, 'secret_key_required').error_field).toBe(field);
        }
        expect(expectError(await create({}), 400, 'missing_field').error_field).toBe('session_token');
        expectError(await create({ session_token: 'nope' }), 401, 'session_not_found');
      } finally {
        await bed.latchkey.apps.updateSettings(bed.t.app_id, { redirect_urls: { invite: [INVITE] } });
      }
    });

    it('keeps the secret key as it was, and refuses a session beside it', async () => {
      const caller = await signIn(`backend-${unique()}@example.com`);
      const res = await bed.t.call('POST', '/v1/organizations', {
        name: 'Backend',
        slug: `b-${unique()}`,
        owner_user_id: caller.user_id,
        allowed_email_domains: ['example.com'],
      });
      expect(res.status).toBe(200);
      expect(addedEvent(res.body.organization_id, caller.user_id)?.data.joined_by).toBe('created');
      const both = await bed.t.call('POST', '/v1/organizations', {
        name: 'Backend',
        slug: `b-${unique()}`,
        session_token: caller.session_token,
      });
      expect(expectError(both, 400, 'invalid_field').error_field).toBe('session_token');
    });
  });

  describe('members inviting', () => {
    const invite = (orgId: string, caller: Caller | null, body: Record<string, unknown> = {}, app = bed.t) =>
      app.call(
        'POST',
        `/v1/organizations/${orgId}/invitations`,
        {
          email: `invitee-${unique()}@example.com`,
          redirect_url: INVITE,
          ...(caller ? { session_token: caller.session_token } : {}),
          ...body,
        },
        caller ? app.public_token : undefined,
      );
    /** An organization whose members hold these roles, each signed in. */
    const orgWith = async (whoCanInvite: 'admins' | 'members') => {
      const [owner, admin, member, outsider] = await Promise.all(
        ['owner', 'admin', 'member', 'outsider'].map((r) => signIn(`${r}-${unique()}@example.com`)),
      );
      const orgId = await createOrg({
        owner_user_id: owner!.user_id,
        settings: { who_can_invite: whoCanInvite },
      });
      for (const [caller, role] of [
        [admin!, 'admin'],
        [member!, 'member'],
      ] as const)
        expect(
          (
            await bed.t.call('POST', `/v1/organizations/${orgId}/members`, {
              user_id: caller.user_id,
              roles: [role],
            })
          ).status,
        ).toBe(200);
      return { orgId, owner: owner!, admin: admin!, member: member!, outsider: outsider! };
    };

    it("who_can_invite 'admins': members:invite needed, and roles no wider than the inviter's", async () => {
      const { orgId, owner, admin, member, outsider } = await orgWith('admins');
      const refused = expectError(await invite(orgId, member), 403, 'invitation_not_allowed');
      expect(refused.error_message).toMatch(/members:invite/);
      expect((await invite(orgId, admin)).body).toMatchObject({ status: 'pending' });
      expect((await invite(orgId, admin, { roles: ['admin'] })).status).toBe(200);
      expect(
        expectError(await invite(orgId, admin, { roles: ['owner'] }), 403, 'invitation_not_allowed')
          .error_field,
      ).toBe('roles.0');
      expect((await invite(orgId, owner, { roles: ['owner'] })).status).toBe(200);
      expectError(await invite(orgId, outsider), 404, 'organization_not_found');
      expect((await invite(orgId, null, { roles: ['owner'] })).status).toBe(200);
    });

    it("who_can_invite 'members': any member, with roles no wider than theirs", async () => {
      const { orgId, member, outsider } = await orgWith('members');
      const sent = await invite(orgId, member);
      expect(sent.status).toBe(200);
      expect(sent.body.roles).toEqual(['member']);
      expect(
        expectError(await invite(orgId, member, { roles: ['admin'] }), 403, 'invitation_not_allowed')
          .error_field,
      ).toBe('roles.0');
      expectError(await invite(orgId, outsider), 404, 'organization_not_found');
      // Another App's member, with that App's public token: the organization is not there.
      const stranger = await signIn(`s-${unique()}@example.com`, bed.other);
      expectError(await invite(orgId, stranger, {}, bed.other), 404, 'organization_not_found');
      expectError(await invite(orgId, { ...member, session_token: 'nope' }), 401, 'session_not_found');
      const withSecret = await bed.t.call('POST', `/v1/organizations/${orgId}/invitations`, {
        email: `x-${unique()}@example.com`,
        redirect_url: INVITE,
        session_token: member.session_token,
      });
      expect(expectError(withSecret, 400, 'invalid_field').error_field).toBe('session_token');
    });
  });

  describe('the limit on invitations', () => {
    let limited: TestApp;
    beforeAll(async () => {
      limited = await testApp(bed.latchkey);
      await bed.latchkey.apps.updateSettings(limited.app_id, {
        redirect_urls: { invite: [INVITE] },
        rate_limits: {
          invitations_per_organization: { limit: 3, window_seconds: 3600 },
          per_destination: { limit: 2, window_seconds: 600 },
        },
      });
    });
    const invite = (orgId: string, email: string) =>
      limited.call('POST', `/v1/organizations/${orgId}/invitations`, { email, redirect_url: INVITE });

    it('per organization: 429 past the limit, other organizations unaffected, nothing sent', async () => {
      const orgId = await createOrg({}, limited);
      for (let i = 0; i < 3; i++)
        expect((await invite(orgId, `p${i}-${unique()}@example.com`)).status).toBe(200);
      const email = `p3-${unique()}@example.com`;
      const res = expectError(await invite(orgId, email), 429, 'rate_limited');
      expect(res).toBeDefined();
      expect(sender.sent.some((m) => m.to === email)).toBe(false);
      expect((await invite(await createOrg({}, limited), email)).status).toBe(200);
    });

    it('per email address: 429 past the limit, whichever organization invites', async () => {
      const email = `same-${unique()}@example.com`;
      expect((await invite(await createOrg({}, limited), email)).status).toBe(200);
      expect((await invite(await createOrg({}, limited), email)).status).toBe(200);
      const refused = await invite(await createOrg({}, limited), email);
      expectError(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      clock.advance(601);
      expect((await invite(await createOrg({}, limited), email)).status).toBe(200);
    });
  });
});
