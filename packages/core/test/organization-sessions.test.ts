import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey, type Factor, type Latchkey, type Storage } from '../src/index.js';
import { expectErrorShape, manualClock, TEST_SECRET, type TestApp, testApp } from './helpers.js';
import { storageBackends } from './storage-backends.js';

const factor: Factor = {
  type: 'otp',
  delivery_channel: 'email',
  method: {
    method_id: 'email_x',
    method_type: 'email',
    email_id: 'email_x',
    email: 'x@example.com',
    last_verified_at: 0,
  },
};

describe.each(storageBackends())('sessions in an organization on $name', (backend) => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let latchkey: Latchkey;
  let t: TestApp;
  let other: TestApp;

  beforeAll(async () => {
    const opened = await backend.open();
    storage = opened.storage;
    dispose = opened.dispose;
    latchkey = createLatchkey({ storage, secret: TEST_SECRET, clock: manualClock() });
    t = await testApp(latchkey);
    other = await testApp(latchkey);
    await latchkey.apps.updateSettings(t.app_id, {
      organizations: { roles: { billing: ['invoices:read', 'invoices:write'] } },
    });
  });
  afterAll(async () => {
    await latchkey?.close();
    await dispose?.();
  });

  let n = 0;
  const slug = () => `org-${++n}-${Math.random().toString(36).slice(2, 8)}`;
  const newUser = async (app = t) => {
    const res = await app.call('POST', '/v1/auth/users', {});
    expect(res.status).toBe(200);
    return res.body.user_id as string;
  };
  const createOrg = async (owner: string, app = t) => {
    const res = await app.call('POST', '/v1/organizations', {
      name: 'Org',
      slug: slug(),
      owner_user_id: owner,
    });
    expect(res.status).toBe(200);
    return res.body.organization_id as string;
  };
  const addMember = async (orgId: string, userId: string, roles: string[]) => {
    const res = await t.call('POST', `/v1/organizations/${orgId}/members`, { user_id: userId, roles });
    expect(res.status).toBe(200);
    return res.body.member_id as string;
  };
  const signIn = async (userId: string, app = t) => {
    const issued = await latchkey.sessions.issue(app.app_id, userId, factor, { session_expires_in: 60 });
    return {
      token: issued.session_token as string,
      jwt: issued.session_jwt as string,
      id: issued.session!.id,
    };
  };
  const exchange = (orgId: string, body: unknown, key: string | null = t.public_token, app = t) =>
    app.call('POST', `/v1/organizations/${orgId}/sessions/exchange`, body, key);
  const expectError = (res: Awaited<ReturnType<TestApp['call']>>, status: number, type: string) => {
    expect(res.status).toBe(status);
    expect(expectErrorShape(res).error_type).toBe(type);
  };

  it('exchanges a member’s session for one scoped to the organization, revoking the one sent', async () => {
    const user = await newUser();
    const orgId = await createOrg(await newUser());
    await addMember(orgId, user, ['billing', 'member']);
    const sent = await signIn(user);

    const res = await exchange(orgId, { session_token: sent.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      user_id: user,
      session_token: expect.stringMatching(/^lks_/),
      session: { user_id: user, organization_id: orgId, factors: [expect.objectContaining({ type: 'otp' })] },
    });
    expect(res.body.session.id).not.toBe(sent.id);
    expect(res.body.session_token).not.toBe(sent.token);
    const claims = decodeJwt(res.body.session_jwt as string);
    expect(claims).toMatchObject({
      sub: user,
      sid: res.body.session.id,
      organization_id: orgId,
      roles: ['billing', 'member'],
      permissions: ['invoices:read', 'invoices:write', 'members:read', 'organization:read'],
    });

    // The one sent is over; the new one is checked in both modes with its organization.
    expectError(
      await t.call('POST', '/v1/auth/sessions/authenticate', { session_token: sent.token }),
      401,
      'session_not_found',
    );
    for (const credential of [
      { session_token: res.body.session_token },
      { session_jwt: res.body.session_jwt },
    ]) {
      const checked = await latchkey.sessions.check({ app_id: t.app_id, ...credential });
      expect(checked).toMatchObject({
        organization_id: orgId,
        roles: ['billing', 'member'],
        permissions: ['invoices:read', 'invoices:write', 'members:read', 'organization:read'],
      });
    }
    // authenticate answers with its organization, and its JWT keeps the claims.
    const again = await t.call('POST', '/v1/auth/sessions/authenticate', {
      session_token: res.body.session_token,
    });
    expect(again.status).toBe(200);
    expect(again.body.session.organization_id).toBe(orgId);
    expect(decodeJwt(again.body.session_jwt as string)).toMatchObject({ organization_id: orgId });

    // An unscoped session says nothing of organizations.
    const plain = await signIn(user);
    const unscoped = await latchkey.sessions.check({ app_id: t.app_id, session_token: plain.token });
    expect(unscoped.organization_id).toBeUndefined();
    expect(unscoped.permissions).toBeUndefined();
  });

  it('keeps the expiry sent unless session_expires_in, and takes a JWT or the secret key', async () => {
    const owner = await newUser();
    const orgId = await createOrg(owner);
    const sent = await signIn(owner);
    const before = await latchkey.sessions.check({
      app_id: t.app_id,
      session_token: sent.token,
      mode: 'token',
    });
    const res = await exchange(orgId, { session_jwt: sent.jwt }, t.secret_key);
    expect(res.status).toBe(200);
    expect(res.body.session.expires_at).toBe(before.expires_at);
    expect(decodeJwt(res.body.session_jwt as string)).toMatchObject({ roles: ['owner'], permissions: ['*'] });
    const longer = await exchange(orgId, { session_token: res.body.session_token, session_expires_in: 600 });
    expect(longer.status).toBe(200);
    expect(longer.body.session.expires_at).toBeGreaterThan(before.expires_at);
  });

  it('of 10 concurrent exchanges of one session exactly one succeeds: one session per sign-in', async () => {
    const owner = await newUser();
    const orgId = await createOrg(owner);
    const sent = await signIn(owner);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => exchange(orgId, { session_token: sent.token })),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 200)) expectError(r, 401, 'session_not_found');
    const live = await latchkey.sessions.list(t.app_id, { user_id: owner });
    expect(live.sessions.map((x) => x.id)).toEqual([answers.find((r) => r.status === 200)!.body.session.id]);
  });

  it('gives a member of A no session in B (403 not_a_member) and keeps the one sent', async () => {
    const user = await newUser();
    const a = await createOrg(await newUser());
    const b = await createOrg(await newUser());
    await addMember(a, user, ['member']);
    const sent = await signIn(user);
    expectError(await exchange(b, { session_token: sent.token }), 403, 'not_a_member');
    // A scoped session of A cannot be exchanged into B either.
    const inA = await exchange(a, { session_token: sent.token });
    expect(inA.status).toBe(200);
    expectError(await exchange(b, { session_jwt: inA.body.session_jwt }), 403, 'not_a_member');
    expect(
      (await t.call('POST', '/v1/auth/sessions/authenticate', { session_token: inA.body.session_token }))
        .status,
    ).toBe(200);
  });

  it("answers another App's organization with 404, and a session of another App with 401", async () => {
    const mine = await newUser();
    const theirs = await newUser(other);
    const theirOrg = await createOrg(theirs, other);
    const myOrg = await createOrg(mine);
    const sent = await signIn(mine);
    expectError(await exchange(theirOrg, { session_token: sent.token }), 404, 'organization_not_found');
    const theirSession = await signIn(theirs, other);
    expectError(await exchange(myOrg, { session_token: theirSession.token }), 401, 'session_not_found');
    expectError(await exchange('org_missing', { session_token: sent.token }), 404, 'organization_not_found');
  });

  it('refuses bad input with a documented 4xx, never a 500', async () => {
    const owner = await newUser();
    const orgId = await createOrg(owner);
    const sent = await signIn(owner);
    expectError(await exchange(orgId, {}), 400, 'missing_field');
    expectError(
      await exchange(orgId, { session_token: sent.token, session_jwt: sent.jwt }),
      400,
      'invalid_field',
    );
    expectError(await exchange(orgId, { session_token: 7 }), 400, 'invalid_field');
    expectError(
      await exchange(orgId, { session_token: sent.token, session_expires_in: 1 }),
      400,
      'invalid_field',
    );
    expectError(await exchange(orgId, { session_token: sent.token, extra: 1 }), 400, 'unknown_field');
    expectError(await exchange(orgId, { session_jwt: 'not.a.jwt' }), 401, 'invalid_session_jwt');
    expectError(await exchange(orgId, { session_token: 'lks_nope' }), 401, 'session_not_found');
    expectError(await exchange(orgId, { session_token: sent.token }, null), 401, 'unauthorized');
    const bad = await t.call('POST', `/v1/organizations/${orgId}/sessions/exchange`, null, t.public_token);
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
  });

  it('exchanges only a session signed in by a method the organization allows; an empty list allows any', async () => {
    const user = await newUser();
    const owner = await newUser();
    const byOtp = await createOrg(owner);
    const byOAuth = await createOrg(owner);
    const open = await createOrg(owner);
    for (const orgId of [byOtp, byOAuth, open]) await addMember(orgId, user, ['member']);
    const restrict = async (orgId: string, methods: string[]) => {
      const res = await t.call('PATCH', `/v1/organizations/${orgId}`, {
        settings: { allowed_sign_in_methods: methods },
      });
      expect(res.status).toBe(200);
      expect(res.body.settings.allowed_sign_in_methods).toEqual(methods);
    };
    await restrict(byOtp, ['email_otp']);
    await restrict(byOAuth, ['oauth']);

    // Signed in by an email code: refused where only OAuth is allowed, and nothing revoked.
    const sent = await signIn(user);
    const refused = await exchange(byOAuth, { session_token: sent.token });
    expect(refused.status).toBe(403);
    expect(expectErrorShape(refused)).toMatchObject({
      error_type: 'sign_in_method_not_allowed',
      error_message: expect.stringContaining('allowed_sign_in_methods'),
    });
    expectError(await exchange(byOAuth, { session_jwt: sent.jwt }), 403, 'sign_in_method_not_allowed');
    const still = await t.call('POST', '/v1/auth/sessions/authenticate', { session_token: sent.token });
    expect(still.status).toBe(200);
    expect(still.body.session.id).toBe(sent.id);

    // The same session goes where email codes are allowed.
    const inOtp = await exchange(byOtp, { session_token: sent.token });
    expect(inOtp.status).toBe(200);
    expect(inOtp.body.session.organization_id).toBe(byOtp);
    // Where the list is empty, any session goes; an OAuth-only organization still refuses it.
    expect((await exchange(open, { session_token: (await signIn(user)).token })).status).toBe(200);
    expectError(
      await exchange(byOAuth, { session_jwt: inOtp.body.session_jwt }),
      403,
      'sign_in_method_not_allowed',
    );
    await restrict(byOAuth, []);
    expect((await exchange(byOAuth, { session_token: (await signIn(user)).token })).status).toBe(200);
  });

  it('revokes the member’s organization sessions when their roles change or they are removed, in jwt mode too', async () => {
    const user = await newUser();
    const orgId = await createOrg(await newUser());
    const memberId = await addMember(orgId, user, ['billing']);
    const plain = await signIn(user);
    const scoped = (await exchange(orgId, { session_token: (await signIn(user)).token })).body;
    // Verified once, so the jwt-mode answer below comes from memory, not storage.
    await latchkey.sessions.check({ app_id: t.app_id, session_jwt: scoped.session_jwt });

    const changed = await t.call('PATCH', `/v1/organizations/${orgId}/members/${memberId}`, {
      roles: ['member'],
    });
    expect(changed.status).toBe(200);
    await expect(
      latchkey.sessions.check({ app_id: t.app_id, session_jwt: scoped.session_jwt }),
    ).rejects.toMatchObject({
      errorType: 'session_not_found',
    });
    expect(latchkey.sessions.checkKnownJwt(t.app_id, scoped.session_jwt)).toBeUndefined();
    await expect(
      latchkey.sessions.check({ app_id: t.app_id, session_token: scoped.session_token }),
    ).rejects.toMatchObject({
      errorType: 'session_not_found',
    });
    // Their unscoped session is none of the organization's business.
    expect((await latchkey.sessions.check({ app_id: t.app_id, session_token: plain.token })).user_id).toBe(
      user,
    );

    // A new exchange carries the new roles; removal ends it.
    const next = (await exchange(orgId, { session_token: (await signIn(user)).token })).body;
    expect(decodeJwt(next.session_jwt as string).roles).toEqual(['member']);
    await latchkey.sessions.check({ app_id: t.app_id, session_jwt: next.session_jwt });
    expect((await t.call('DELETE', `/v1/organizations/${orgId}/members/${memberId}`)).status).toBe(200);
    await expect(
      latchkey.sessions.check({ app_id: t.app_id, session_jwt: next.session_jwt }),
    ).rejects.toMatchObject({
      errorType: 'session_not_found',
    });
    expect((await latchkey.sessions.check({ app_id: t.app_id, session_token: plain.token })).user_id).toBe(
      user,
    );
  });

  it("leaves other members' and organizations' sessions alone, and ends all of one deleted organization", async () => {
    const owner = await newUser();
    const user = await newUser();
    const a = await createOrg(owner);
    const b = await createOrg(owner);
    const memberId = await addMember(a, user, ['member']);
    await addMember(b, user, ['member']);
    const ownerInA = (await exchange(a, { session_token: (await signIn(owner)).token })).body;
    const userInB = (await exchange(b, { session_token: (await signIn(user)).token })).body;
    const userInA = (await exchange(a, { session_token: (await signIn(user)).token })).body;

    expect(
      (await t.call('PATCH', `/v1/organizations/${a}/members/${memberId}`, { roles: ['admin'] })).status,
    ).toBe(200);
    const live = (s: { session_token: string }) =>
      latchkey.sessions.check({ app_id: t.app_id, session_token: s.session_token }).then(
        () => true,
        () => false,
      );
    expect(await live(userInA)).toBe(false);
    expect(await live(ownerInA)).toBe(true);
    expect(await live(userInB)).toBe(true);

    expect((await t.call('DELETE', `/v1/organizations/${a}`)).status).toBe(200);
    expect(await live(ownerInA)).toBe(false);
    expect(await live(userInB)).toBe(true);
    const revoked = await storage.sessions.get(t.app_id, ownerInA.session.id);
    expect(revoked?.revoked_at).not.toBeNull();
  });
});
