import { describe, expect, it } from 'vitest';
import { expectError, INVITE, organizationTestbed } from './organization-testbed.js';
import { storageBackends } from './storage-backends.js';

describe.each(storageBackends())('organization invitations on $name', (backend) => {
  const bed = organizationTestbed(backend, { organizations: { roles: { billing: ['invoices:read'] } } });
  const { sender, clock, events } = bed;

  let n = 0;
  const freshEmail = () => `invitee-${++n}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const createOrg = async (app = bed.t) => {
    const slug = `acme-${++n}-${Math.random().toString(36).slice(2, 8)}`;
    const res = await app.call('POST', '/v1/organizations', { name: 'Acme <Corp>', slug });
    expect(res.status).toBe(200);
    return res.body.organization_id as string;
  };
  const invite = (orgId: string, body: Record<string, unknown>, app = bed.t) =>
    app.call('POST', `/v1/organizations/${orgId}/invitations`, { redirect_url: INVITE, ...body });
  /** The token in the link of the last message to `to`, read from the email's text as a person would. */
  const tokenSentTo = (to: string) => {
    const m = sender.sent.filter((x) => x.to === to).at(-1);
    expect(m?.kind).toBe('invitation');
    const url = m?.text?.match(/https:\/\/\S+/)?.[0];
    expect(url?.startsWith(`${INVITE}?token=`)).toBe(true);
    return new URL(url as string).searchParams.get('token') as string;
  };
  const accept = (body: Record<string, unknown>, app = bed.t) =>
    app.call('POST', '/v1/organizations/invitations/accept', body, app.public_token);

  it('refuses, without spending it, an invitation to an organization whose sign-in methods exclude magic_link', async () => {
    const orgId = await createOrg();
    const email = freshEmail();
    expect((await invite(orgId, { email })).status).toBe(200);
    const token = tokenSentTo(email);
    const restrict = (methods: string[]) =>
      bed.t.call('PATCH', `/v1/organizations/${orgId}`, { settings: { allowed_sign_in_methods: methods } });
    expect((await restrict(['email_otp', 'oauth'])).status).toBe(200);

    const refused = await accept({ token, session_expires_in: 60 });
    expectError(refused, 403, 'sign_in_method_not_allowed');
    expect(refused.body.session_token).toBeUndefined();
    expect((await bed.t.call('GET', `/v1/organizations/${orgId}/members`)).body.members).toEqual([]);
    const pending = await bed.t.call('GET', `/v1/organizations/${orgId}/invitations`);
    expect(pending.body.invitations).toEqual([expect.objectContaining({ email, status: 'pending' })]);

    // Once the organization allows sign-in by link, the same token works, once.
    expect((await restrict(['email_otp', 'magic_link'])).status).toBe(200);
    const accepted = await accept({ token, session_expires_in: 60 });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ organization_id: orgId, member_created: true });
    expectError(await accept({ token }), 401, 'invitation_used');
  });

  it('emails a link whose token, accepted with the public token, signs the new invitee in as a member', async () => {
    const orgId = await createOrg();
    const email = freshEmail();
    const created = await invite(orgId, { email: email.toUpperCase(), roles: ['billing'] });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      invitation_id: expect.stringMatching(/^orginv_/),
      organization_id: orgId,
      email,
      roles: ['billing'],
      status: 'pending',
    });
    const m = sender.sent.at(-1);
    expect(m?.subject).toContain('Acme <Corp>');
    expect(m?.html).toContain('Acme &lt;Corp&gt;');

    const listed = await bed.t.call('GET', `/v1/organizations/${orgId}/invitations`);
    expect(listed.body.invitations).toEqual([created.body]);

    const res = await accept({ token: tokenSentTo(email), session_expires_in: 60 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      organization_id: orgId,
      member_id: expect.stringMatching(/^orgmember_/),
      member_created: true,
      user_created: true,
      session_token: expect.any(String),
    });
    const user = await bed.t.call('GET', `/v1/auth/users/${res.body.user_id}`);
    expect(user.body.status).toBe('active');
    expect(user.body.emails).toEqual([expect.objectContaining({ email, verified: true })]);
    const member = await bed.t.call('GET', `/v1/organizations/${orgId}/members/${res.body.member_id}`);
    expect(member.body).toMatchObject({ user_id: res.body.user_id, roles: ['billing'] });
    // Accepted: no longer listed, and the link does not work twice.
    expect((await bed.t.call('GET', `/v1/organizations/${orgId}/invitations`)).body.invitations).toEqual([]);
    expectError(await accept({ token: tokenSentTo(email) }), 401, 'invitation_used');
    const types = events.filter((e) => e.data.organization_id === orgId).map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining(['organization.invitation.created', 'organization.invitation.accepted']),
    );
  });

  it("gives the organization's default role, and an existing user keeps their id", async () => {
    const orgId = await createOrg();
    const email = freshEmail();
    const existing = await bed.t.call('POST', '/v1/auth/users', { email });
    expect((await invite(orgId, { email })).body.roles).toEqual(['member']);
    const res = await accept({ token: tokenSentTo(email) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user_id: existing.body.user_id, user_created: false });
    expect(res.body.session_token).toBeUndefined();
  });

  it('refuses to invite a member (409), an unknown role and a redirect not on redirect_urls.invite (400)', async () => {
    const orgId = await createOrg();
    const email = freshEmail();
    await invite(orgId, { email });
    await accept({ token: tokenSentTo(email) });
    expectError(await invite(orgId, { email }), 409, 'organization_member_exists');
    expectError(await invite(orgId, { email: freshEmail(), roles: ['nope'] }), 400, 'unknown_role');
    const sentBefore = sender.sent.length;
    for (const redirect_url of [
      'https://evil.example.com/invite',
      'https://app.example.com/invite/other',
      'javascript:alert(1)',
    ])
      expectError(
        await invite(orgId, { email: freshEmail(), redirect_url }),
        400,
        'redirect_url_not_allowed',
      );
    expect(sender.sent.length).toBe(sentBefore);
  });

  it('answers a member who joined meanwhile with their membership, spending the invitation', async () => {
    const orgId = await createOrg();
    const email = freshEmail();
    await invite(orgId, { email, roles: ['admin'] });
    const token = tokenSentTo(email);
    const added = await bed.t.call('POST', `/v1/organizations/${orgId}/members`, {
      email,
      roles: ['billing'],
    });
    const res = await accept({ token, session_expires_in: 30 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ member_id: added.body.member_id, member_created: false });
    const member = await bed.t.call('GET', `/v1/organizations/${orgId}/members/${added.body.member_id}`);
    expect(member.body.roles).toEqual(['billing']);
    expectError(await accept({ token }), 401, 'invitation_used');
  });

  it('refuses revoked, expired and unknown tokens with their own error types', async () => {
    const orgId = await createOrg();
    const revokedEmail = freshEmail();
    const created = await invite(orgId, { email: revokedEmail });
    const revoked = await bed.t.call(
      'DELETE',
      `/v1/organizations/${orgId}/invitations/${created.body.invitation_id}`,
    );
    expect(revoked.body.status).toBe('revoked');
    expectError(await accept({ token: tokenSentTo(revokedEmail) }), 401, 'invitation_revoked');
    expectError(
      await bed.t.call('DELETE', `/v1/organizations/${orgId}/invitations/${created.body.invitation_id}`),
      404,
      'invitation_not_found',
    );

    const expiringEmail = freshEmail();
    await invite(orgId, { email: expiringEmail, expires_in: 5 });
    const listed = await bed.t.call('GET', `/v1/organizations/${orgId}/invitations`);
    expect(listed.body.invitations.map((i: { status: string }) => i.status)).toEqual(['pending']);
    clock.advance(5 * 60);
    expect(
      (await bed.t.call('GET', `/v1/organizations/${orgId}/invitations`)).body.invitations[0].status,
    ).toBe('expired');
    expectError(await accept({ token: tokenSentTo(expiringEmail) }), 401, 'invitation_expired');
    expectError(await accept({ token: 'not-a-token' }), 404, 'invitation_not_found');
  });

  it("keeps Apps apart: another App's invitation and token are not found", async () => {
    const orgId = await createOrg();
    const email = freshEmail();
    const created = await invite(orgId, { email });
    const token = tokenSentTo(email);
    expectError(await invite(orgId, { email: freshEmail() }, bed.other), 404, 'organization_not_found');
    expectError(
      await bed.other.call('GET', `/v1/organizations/${orgId}/invitations`),
      404,
      'organization_not_found',
    );
    expectError(
      await bed.other.call('DELETE', `/v1/organizations/${orgId}/invitations/${created.body.invitation_id}`),
      404,
      'invitation_not_found',
    );
    expectError(await accept({ token }, bed.other), 404, 'invitation_not_found');
    expect((await accept({ token })).status).toBe(200);
  });

  it('of 20 concurrent accepts of one invitation, exactly one succeeds and one membership exists', async () => {
    const orgId = await createOrg();
    const email = freshEmail();
    await invite(orgId, { email });
    const token = tokenSentTo(email);
    const results = await Promise.all(Array.from({ length: 20 }, () => accept({ token })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectError(r, 401, 'invitation_used');
    const members = await bed.t.call('GET', `/v1/organizations/${orgId}/members`);
    expect(members.body.members).toHaveLength(1);
  });

  it('answers bad input of every shape with a 4xx', async () => {
    const orgId = await createOrg();
    const bodies: unknown[] = [
      {},
      { email: 42 },
      { email: freshEmail() },
      { email: 'not an email', redirect_url: INVITE },
      { email: freshEmail(), redirect_url: INVITE, roles: [] },
      { email: freshEmail(), redirect_url: INVITE, roles: 'admin' },
      { email: freshEmail(), redirect_url: INVITE, expires_in: 1 },
      { email: freshEmail(), redirect_url: INVITE, extra: true },
      [],
      null,
    ];
    for (const body of bodies) {
      const res = await bed.t.call('POST', `/v1/organizations/${orgId}/invitations`, body);
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status, JSON.stringify(body)).toBeLessThan(500);
    }
    for (const body of [{}, { token: '' }, { token: 7 }, { token: 'x', session_expires_in: 'long' }, null]) {
      const res = await accept(body as Record<string, unknown>);
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status, JSON.stringify(body)).toBeLessThan(500);
    }
    // The public token invites only for a member's session.
    const res = await bed.t.call(
      'POST',
      `/v1/organizations/${orgId}/invitations`,
      {
        email: freshEmail(),
        redirect_url: INVITE,
      },
      bed.t.public_token,
    );
    expect(expectError(res, 400, 'missing_field').error_field).toBe('session_token');
    expect(bed.storage).toBeDefined();
  });
});
