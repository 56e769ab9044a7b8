import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape } from './helpers.js';
import { LOGIN_URL, type OAuthApp, type OAuthHarness, oauthHarness } from './oauth-peers/latchkey-oauth.js';
import { type OidcProviderServer, startOidcProvider } from './oauth-peers/oidc-provider-server.js';
import { storageBackends } from './storage-backends.js';

/**
 * Single sign-on per organization through panva's oidc-provider (a certified OpenID Connect
 * server), as a browser would: Latchkey's SSO start, the provider's login and consent, Latchkey's
 * callback, authenticate, and the member provisioned with the organization's default role.
 */

const SECRET = 'sso-client-secret-0123456789abcdef-never-shown';
const SSO_CALLBACK_URL = 'http://latchkey.test/v1/auth/sso/callback';

interface Reply {
  status: number;
  body: any;
  location: URL | null;
}

describe.each(storageBackends())('SSO with oidc-provider on $name', (backend) => {
  let h: OAuthHarness;
  let op: OidcProviderServer;
  /** What `fetch` does to the provider's token answers: replay an earlier ID token when set. */
  let replayIdToken: string | null = null;
  let lastIdToken: string | null = null;
  let n = 0;
  const fresh = (tag: string, domain: string) => {
    n += 1;
    const id = `${tag}-${n}-${Math.random().toString(36).slice(2, 8)}`;
    return { id, email: `${id}@${domain}` };
  };

  /** Every answer any test got: none may hold the client secret. */
  const answers: string[] = [];

  beforeAll(async () => {
    op = await startOidcProvider({
      clients: [{ client_id: 'acme-sso', client_secret: SECRET, redirect_uris: [SSO_CALLBACK_URL] }],
      claimsInIdToken: true,
    });
    const interceptor: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!url.endsWith('/token')) return res;
      const body = (await res.json()) as Record<string, unknown>;
      if (typeof body.id_token === 'string') lastIdToken = body.id_token;
      if (replayIdToken) body.id_token = replayIdToken;
      return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
    };
    h = await oauthHarness(backend, {
      oauth: { callbackUrl: undefined, allowInsecureIssuers: true, fetch: interceptor },
      sso: { callbackUrl: SSO_CALLBACK_URL },
    });
  });
  afterAll(async () => {
    await op?.close();
    await h?.dispose();
  });

  const get = async (app: OAuthApp, path: string): Promise<Reply> => {
    const res = await app.latchkey.fetch(new Request(`http://latchkey.test${path}`));
    const text = await res.text();
    answers.push(text, res.headers.get('location') ?? '');
    const location = res.headers.get('location');
    return {
      status: res.status,
      body: text ? JSON.parse(text) : undefined,
      location: location ? new URL(location) : null,
    };
  };
  const call = async (app: OAuthApp, method: string, path: string, body?: unknown, key?: string | null) => {
    const res = await app.call(method, path, body, key === undefined ? app.secret_key : key);
    answers.push(JSON.stringify(res.body));
    return res;
  };

  /** An App with an organization (default role `admin`) and its connection claiming `domain`. */
  async function orgWithConnection(domain: string, over: Record<string, unknown> = {}) {
    const app = await h.app({});
    n += 1;
    const org = await call(app, 'POST', '/v1/organizations', {
      name: 'Acme',
      slug: `acme-${n}`,
      settings: { default_role: 'admin' },
    });
    expect(org.status, JSON.stringify(org.body)).toBe(200);
    const organizationId: string = org.body.organization_id;
    const connection = await call(app, 'POST', `/v1/organizations/${organizationId}/sso_connection`, {
      issuer: op.issuer,
      client_id: 'acme-sso',
      client_secret: SECRET,
      email_domains: [domain],
      ...over,
    });
    expect(connection.status, JSON.stringify(connection.body)).toBe(200);
    return { app, organizationId, slug: org.body.slug as string, connection: connection.body };
  }

  const start = (app: OAuthApp, query: Record<string, string>) =>
    get(
      app,
      `/v1/auth/sso/start?${new URLSearchParams({ public_token: app.public_token, redirect_url: LOGIN_URL, ...query })}`,
    );

  /** start → the provider as `accountId` → Latchkey's callback. */
  async function signIn(app: OAuthApp, query: Record<string, string>, accountId: string) {
    const started = await start(app, query);
    expect(started.status, JSON.stringify(started.body)).toBe(302);
    const back = await op.signInAs(started.location!, accountId);
    expect(`${back.origin}${back.pathname}`).toBe(SSO_CALLBACK_URL);
    return { started, back, callback: await get(app, `${back.pathname}${back.search}`) };
  }

  const tokenOf = (callback: Reply) => {
    expect(callback.status, JSON.stringify(callback.body)).toBe(302);
    const q = callback.location!.searchParams;
    expect(q.get('error'), q.get('error_description') ?? '').toBeNull();
    expect(q.get('token_type')).toBe('sso');
    return q.get('token')!;
  };
  const errorOf = (callback: Reply) => {
    expect(callback.status, JSON.stringify(callback.body)).toBe(302);
    const url = callback.location!;
    expect(`${url.origin}${url.pathname}`).toBe(LOGIN_URL);
    expect(url.searchParams.has('token')).toBe(false);
    return url.searchParams.get('error');
  };
  const authenticate = (app: OAuthApp, token: string, key: string | null = app.public_token) =>
    call(app, 'POST', '/v1/auth/sso/authenticate', { token, session_expires_in: 60 }, key);

  it('start → provider → callback → authenticate: a new user, provisioned as a member with the default role', async () => {
    const { app, organizationId, slug, connection } = await orgWithConnection('acme-one.com');
    expect(connection).toMatchObject({
      connection_id: expect.stringMatching(/^ssoconn_/),
      organization_id: organizationId,
      issuer: op.issuer,
      client_id: 'acme-sso',
      client_secret_hint: SECRET.slice(-4),
      email_domains: ['acme-one.com'],
    });
    const alice = fresh('alice', 'acme-one.com');
    op.accounts[alice.id] = { email: alice.email, email_verified: true };

    const first = await signIn(app, { organization_id: organizationId }, alice.id);
    const authorize = first.started.location!;
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${op.issuer}/auth`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: 'acme-sso',
      redirect_uri: SSO_CALLBACK_URL,
      code_challenge_method: 'S256',
      state: expect.any(String),
      nonce: expect.any(String),
    });
    const signedIn = await authenticate(app, tokenOf(first.callback));
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    expect(signedIn.body).toMatchObject({
      user_id: expect.stringMatching(/^user_/),
      organization_id: organizationId,
      member_id: expect.stringMatching(/^orgmember_/),
      member_created: true,
      user_created: true,
      connection_id: connection.connection_id,
      session_token: expect.any(String),
    });
    expect(signedIn.body.session.factors).toEqual([
      expect.objectContaining({
        type: 'oauth',
        method: expect.objectContaining({
          provider_id: `sso:${connection.connection_id}`,
          provider_subject: alice.id,
          email: alice.email,
        }),
      }),
    ]);
    const { user_id, member_id } = signedIn.body;
    const member = await call(app, 'GET', `/v1/organizations/${organizationId}/members/${member_id}`);
    expect(member.body).toMatchObject({ user_id, roles: ['admin'] });
    const session = await call(
      app,
      'POST',
      '/v1/auth/sessions/authenticate',
      { session_token: signedIn.body.session_token },
      app.public_token,
    );
    expect(session.status).toBe(200);
    expect(session.body.user_id).toBe(user_id);
    // The session is the organization's: its JWT names it and the member's roles.
    expect(session.body.session.organization_id).toBe(organizationId);
    expect(
      await app.latchkey.sessions.check({
        app_id: app.app_id,
        session_jwt: signedIn.body.session_jwt,
        mode: 'jwt',
      }),
    ).toMatchObject({
      user_id,
      organization_id: organizationId,
      roles: ['admin'],
      permissions: expect.any(Array),
    });

    // Again, by slug and by email domain: the same user and member, nothing new.
    for (const query of [{ slug }, { email_domain: 'ACME-one.com' }] as Record<string, string>[]) {
      const again = await signIn(app, query, alice.id);
      const res = await authenticate(app, tokenOf(again.callback));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ user_id, member_id, member_created: false, user_created: false });
    }
    const events = (await h.storage.events.list(app.app_id, { limit: 1000 })).map((e) => e.type);
    expect(events.filter((t) => t === 'organization.sso.member_provisioned')).toHaveLength(1);
    expect(events).toContain('organization.sso.connection_created');
  });

  it('a user with the verified email already is the one signed in, and joins as a member', async () => {
    const { app, organizationId } = await orgWithConnection('acme-two.com');
    const bob = fresh('bob', 'acme-two.com');
    op.accounts[bob.id] = { email: bob.email, email_verified: true };
    const user = await call(app, 'POST', '/v1/auth/users', { email: bob.email });
    expect(user.status, JSON.stringify(user.body)).toBe(200);
    // Latchkey itself must have seen the address proved, as for OAuth's linking by email.
    await h.storage.emails.markVerified(app.app_id, user.body.email_id, 1);
    const { callback } = await signIn(app, { organization_id: organizationId }, bob.id);
    const res = await authenticate(app, tokenOf(callback));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ user_id: user.body.user_id, user_created: false, member_created: true });
  });

  it('refuses an email outside the connection’s domains, and one the provider does not vouch for: nothing created', async () => {
    const { app, organizationId } = await orgWithConnection('acme-three.com');
    const mallory = fresh('mallory', 'other-company.com');
    op.accounts[mallory.id] = { email: mallory.email, email_verified: true };
    const unverified = fresh('carol', 'acme-three.com');
    op.accounts[unverified.id] = { email: unverified.email, email_verified: false };
    const before = await app.counts();

    const outside = await signIn(app, { organization_id: organizationId }, mallory.id);
    expect(errorOf(outside.callback)).toBe('sso_email_domain_not_allowed');
    const notVouched = await signIn(app, { organization_id: organizationId }, unverified.id);
    expect(errorOf(notVouched.callback)).toBe('sso_email_not_verified');
    expect(await app.counts()).toEqual(before);
    const members = await call(app, 'GET', `/v1/organizations/${organizationId}/members`);
    expect(members.body.members).toEqual([]);
  });

  it('without email_domains, the organization’s allowed_email_domains decide', async () => {
    const { app, organizationId } = await orgWithConnection('unused.com', { email_domains: [] });
    await call(app, 'PATCH', `/v1/organizations/${organizationId}`, {
      allowed_email_domains: ['acme-four.com'],
    });
    const dan = fresh('dan', 'acme-four.com');
    op.accounts[dan.id] = { email: dan.email, email_verified: true };
    const eve = fresh('eve', 'elsewhere.com');
    op.accounts[eve.id] = { email: eve.email, email_verified: true };
    expect(tokenOf((await signIn(app, { organization_id: organizationId }, dan.id)).callback)).toBeTruthy();
    expect(errorOf((await signIn(app, { organization_id: organizationId }, eve.id)).callback)).toBe(
      'sso_email_domain_not_allowed',
    );
  });

  it('a replayed state or token is refused, and so is an ID token replayed from an earlier sign-in (its nonce)', async () => {
    const { app, organizationId } = await orgWithConnection('acme-five.com');
    const fay = fresh('fay', 'acme-five.com');
    op.accounts[fay.id] = { email: fay.email, email_verified: true };

    const { back, callback } = await signIn(app, { organization_id: organizationId }, fay.id);
    const token = tokenOf(callback);
    const replayedState = await get(app, `${back.pathname}${back.search}`);
    expect(replayedState.status).toBe(400);
    expect(replayedState.body.error_type).toBe('oauth_state_used');
    const unknownState = await get(app, '/v1/auth/sso/callback?state=made-up&code=x');
    expect(unknownState.status).toBe(400);
    expect(unknownState.body.error_type).toBe('oauth_state_not_found');

    expect((await authenticate(app, token)).status).toBe(200);
    const again = await authenticate(app, token);
    expect(again.status).toBe(401);
    expect(again.body.error_type).toBe('sso_token_used');

    // The provider's token endpoint answers a valid, signed ID token, but an earlier sign-in's.
    const earlier = lastIdToken;
    expect(earlier).toBeTruthy();
    replayIdToken = earlier;
    try {
      const replay = await signIn(app, { organization_id: organizationId }, fay.id);
      expect(errorOf(replay.callback)).toBe('oauth_provider_error');
      expect(replay.callback.location!.searchParams.get('error_description')).toMatch(/nonce/);
    } finally {
      replayIdToken = null;
    }
  });

  it('tenancy: another App’s organization, connection and token are not found', async () => {
    const a = await orgWithConnection('acme-six.com');
    const other = await h.app({});
    // Another App's organization, started with this App's public token.
    const started = await start(other, { organization_id: a.organizationId });
    expect(started.status).toBe(404);
    expect(started.body.error_type).toBe('sso_connection_not_found');
    expect((await start(other, { slug: a.slug })).status).toBe(404);
    expect((await start(other, { email_domain: 'acme-six.com' })).status).toBe(404);
    for (const method of ['GET', 'PATCH', 'DELETE', 'POST']) {
      const res = await call(
        other,
        method,
        `/v1/organizations/${a.organizationId}/sso_connection`,
        method === 'PATCH'
          ? { client_id: 'x' }
          : method === 'POST'
            ? { issuer: op.issuer, client_id: 'x', client_secret: 'y' }
            : undefined,
      );
      expect(res.status, `${method} ${JSON.stringify(res.body)}`).toBe(404);
      expect(res.body.error_type).toBe('organization_not_found');
    }
    // A token from App A's callback, spent with App B's public token.
    const gus = fresh('gus', 'acme-six.com');
    op.accounts[gus.id] = { email: gus.email, email_verified: true };
    const token = tokenOf((await signIn(a.app, { organization_id: a.organizationId }, gus.id)).callback);
    const elsewhere = await authenticate(other, token, other.public_token);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error_type).toBe('sso_token_not_found');
    expect((await authenticate(a.app, token)).status).toBe(200);
    // The secret key is for the backend only: a public token cannot read a connection.
    const withPublic = await call(
      a.app,
      'GET',
      `/v1/organizations/${a.organizationId}/sso_connection`,
      undefined,
      a.app.public_token,
    );
    expect([401, 403]).toContain(withPublic.status);
  });

  it('connections: one per organization, one per domain, an issuer discovered first, bad input 4xx', async () => {
    const { app, organizationId, connection } = await orgWithConnection('acme-seven.com');
    const path = `/v1/organizations/${organizationId}/sso_connection`;
    const twice = await call(app, 'POST', path, { issuer: op.issuer, client_id: 'a', client_secret: 'b' });
    expect(twice.status).toBe(409);
    expect(twice.body.error_type).toBe('sso_connection_exists');

    const second = await call(app, 'POST', '/v1/organizations', { name: 'Other', slug: 'other-seven' });
    const secondPath = `/v1/organizations/${second.body.organization_id}/sso_connection`;
    const taken = await call(app, 'POST', secondPath, {
      issuer: op.issuer,
      client_id: 'a',
      client_secret: 'b',
      email_domains: ['acme-seven.com'],
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error_type).toBe('sso_email_domain_taken');
    const unreachable = await call(app, 'POST', secondPath, {
      issuer: `${op.issuer}/nothing`,
      client_id: 'a',
      client_secret: 'b',
    });
    expect(unreachable.status).toBe(502);
    expect(unreachable.body.error_type).toBe('oauth_provider_error');
    expect((await call(app, 'GET', secondPath)).body.error_type).toBe('sso_connection_not_found');
    for (const bad of [
      {},
      { issuer: 'not a url', client_id: 'a', client_secret: 'b' },
      { issuer: op.issuer, client_id: 'a', client_secret: 'b', client_secret_sealed: 'x' },
      { issuer: op.issuer, client_id: 'a', client_secret: 'b', email_domains: ['not a domain'] },
      { issuer: op.issuer, client_id: 'a', client_secret: '' },
      { issuer: op.issuer, client_id: 'a', client_secret: 'b', scopes: ['has space'] },
    ]) {
      const res = await call(app, 'POST', secondPath, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expectErrorShape(res);
    }
    for (const query of [{}, { organization_id: organizationId, slug: 'x' }] as Record<string, string>[]) {
      const res = await start(app, query);
      expect(res.status, JSON.stringify(query)).toBe(400);
    }
    const badRedirect = await start(app, {
      organization_id: organizationId,
      redirect_url: 'https://evil.example/x',
    });
    expect(badRedirect.status).toBe(400);

    // A new secret: a new hint, the old one never shown; GET shows the same.
    const patched = await call(app, 'PATCH', path, { client_secret: `${SECRET}-rotated-WXYZ` });
    expect(patched.status).toBe(200);
    expect(patched.body.client_secret_hint).toBe('WXYZ');
    expect((await call(app, 'GET', path)).body).toEqual(patched.body);
    const removed = await call(app, 'DELETE', path);
    expect(removed.body).toEqual({
      connection_id: connection.connection_id,
      organization_id: organizationId,
    });
    expect((await call(app, 'GET', path)).status).toBe(404);
    const events = (await h.storage.events.list(app.app_id, { limit: 1000 })).map((e) => e.type);
    expect(events).toEqual(
      expect.arrayContaining(['organization.sso.connection_updated', 'organization.sso.connection_deleted']),
    );
  });

  it('a domain is one connection’s: of 10 concurrent creates (then updates) claiming it, one wins', async () => {
    const app = await h.app({});
    const organizations = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const org = await call(app, 'POST', '/v1/organizations', { name: `Race ${i}`, slug: `race-${i}` });
        expect(org.status, JSON.stringify(org.body)).toBe(200);
        return org.body.organization_id as string;
      }),
    );
    const ownDomain = (organizationId: string) => `own-${organizations.indexOf(organizationId)}.com`;
    const connectionPath = (organizationId: string) => `/v1/organizations/${organizationId}/sso_connection`;
    const body = { issuer: op.issuer, client_id: 'acme-sso', client_secret: SECRET };
    const onlyWinner = async (replies: Awaited<ReturnType<typeof call>>[]) => {
      expect(replies.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
      for (const lost of replies.filter((r) => r.status === 409)) {
        expect(expectErrorShape(lost)).toMatchObject({
          error_type: 'sso_email_domain_taken',
          error_field: 'email_domains.1',
        });
      }
      const winner = replies.find((r) => r.status === 200)!.body;
      // The domain names the winner's organization at sign-in start, the losers kept nothing.
      const bob = fresh('bob', 'race-nine.com');
      op.accounts[bob.id] = { email: bob.email, email_verified: true };
      const signedIn = await authenticate(
        app,
        tokenOf((await signIn(app, { email_domain: 'race-nine.com' }, bob.id)).callback),
      );
      expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
      expect(signedIn.body).toMatchObject({
        organization_id: winner.organization_id,
        connection_id: winner.connection_id,
      });
      return winner;
    };

    const created = await Promise.all(
      organizations.map((id) =>
        call(app, 'POST', connectionPath(id), { ...body, email_domains: [ownDomain(id), 'race-nine.com'] }),
      ),
    );
    const first = await onlyWinner(created);
    for (const id of organizations.filter((o) => o !== first.organization_id)) {
      expect((await call(app, 'GET', connectionPath(id))).status).toBe(404);
    }

    // The winner lets the domain go; the others (now with connections of their own) race for it.
    const released = await call(app, 'PATCH', connectionPath(first.organization_id), { email_domains: [] });
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    const others = organizations.filter((o) => o !== first.organization_id);
    for (const id of others) {
      const own = await call(app, 'POST', connectionPath(id), body);
      expect(own.status, JSON.stringify(own.body)).toBe(200);
    }
    const updated = await Promise.all(
      [first.organization_id, ...others].map((id) =>
        call(app, 'PATCH', connectionPath(id), { email_domains: [ownDomain(id), 'race-nine.com'] }),
      ),
    );
    const second = await onlyWinner(updated);
    for (const id of organizations) {
      const { body: connection } = await call(app, 'GET', connectionPath(id));
      expect(connection.email_domains).toEqual(
        id === second.organization_id ? [ownDomain(id), 'race-nine.com'] : [],
      );
    }

    // Deleting the winner's connection frees the domain: another organization claims it.
    expect((await call(app, 'DELETE', connectionPath(second.organization_id))).status).toBe(200);
    const loser = others.find((o) => o !== second.organization_id) ?? first.organization_id;
    const claimed = await call(app, 'PATCH', connectionPath(loser), { email_domains: ['race-nine.com'] });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
  });

  it('sso_required: refused without a connection, accepted with one, and the connection then stays', async () => {
    const app = await h.app({});
    const created = await call(app, 'POST', '/v1/organizations', {
      name: 'Strict',
      slug: 'strict',
      settings: { sso_required: true },
    });
    expect(created.status).toBe(400);
    const org = await call(app, 'POST', '/v1/organizations', { name: 'Strict', slug: 'strict' });
    const orgPath = `/v1/organizations/${org.body.organization_id}`;
    const refused = await call(app, 'PATCH', orgPath, { settings: { sso_required: true } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error_type: 'invalid_field', error_field: 'settings.sso_required' });
    const connection = await call(app, 'POST', `${orgPath}/sso_connection`, {
      issuer: op.issuer,
      client_id: 'acme-sso',
      client_secret: SECRET,
      email_domains: ['strict.com'],
    });
    expect(connection.status).toBe(200);
    const accepted = await call(app, 'PATCH', orgPath, { settings: { sso_required: true } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.settings.sso_required).toBe(true);
    const inUse = await call(app, 'DELETE', `${orgPath}/sso_connection`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.error_type).toBe('sso_connection_in_use');

    // An invitation to it is refused at accept: its members join through its provider.
    await app.latchkey.apps.patchSettings(app.app_id, {
      redirect_urls: { invite: ['https://app.example.com/invite'] },
    });
    const invited = await call(app, 'POST', `${orgPath}/invitations`, {
      email: 'ivan@strict.com',
      redirect_url: 'https://app.example.com/invite',
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    const link = new URL(h.sender.sent.filter((m) => m.to === 'ivan@strict.com').at(-1)!.url!);
    const accept = await call(
      app,
      'POST',
      '/v1/organizations/invitations/accept',
      { token: link.searchParams.get('token'), session_expires_in: 60 },
      app.public_token,
    );
    expect(accept.status).toBe(403);
    expect(expectErrorShape(accept).error_type).toBe('sso_required');
    expect((await call(app, 'GET', `${orgPath}/members`)).body.members).toEqual([]);
    // Refused, not spent: still pending.
    expect((await call(app, 'GET', `${orgPath}/invitations`)).body.invitations).toEqual([
      expect.objectContaining({ email: 'ivan@strict.com', status: 'pending' }),
    ]);

    // A member signed in another way gets no session of the organization; through its SSO, one.
    const otp = await call(
      app,
      'POST',
      '/v1/auth/otps/email/login_or_create',
      { email: 'olga@strict.com' },
      app.public_token,
    );
    expect(otp.status, JSON.stringify(otp.body)).toBe(200);
    const code = h.sender.sent.filter((m) => m.to === 'olga@strict.com').at(-1)!.code!;
    const byCode = await call(
      app,
      'POST',
      '/v1/auth/otps/verify',
      { method_id: otp.body.method_id, otp: code, session_expires_in: 60 },
      app.public_token,
    );
    expect(byCode.status, JSON.stringify(byCode.body)).toBe(200);
    expect(
      (await call(app, 'POST', `${orgPath}/members`, { user_id: byCode.body.user_id, roles: ['member'] }))
        .status,
    ).toBe(200);
    const exchanged = await call(
      app,
      'POST',
      `${orgPath}/sessions/exchange`,
      { session_token: byCode.body.session_token },
      app.public_token,
    );
    expect(exchanged.status).toBe(403);
    expect(expectErrorShape(exchanged).error_type).toBe('sso_required');
    op.accounts.olga = { email: 'olga@strict.com', email_verified: true };
    const viaSso = await authenticate(
      app,
      tokenOf((await signIn(app, { organization_id: org.body.organization_id }, 'olga')).callback),
    );
    expect(viaSso.status, JSON.stringify(viaSso.body)).toBe(200);
    expect(viaSso.body).toMatchObject({ user_id: byCode.body.user_id, member_created: false });
    expect(viaSso.body.session.organization_id).toBe(org.body.organization_id);

    // With sso_required off, the invitation refused above accepts: its token was never spent.
    await call(app, 'PATCH', orgPath, { settings: { sso_required: false } });
    const later = await call(
      app,
      'POST',
      '/v1/organizations/invitations/accept',
      { token: link.searchParams.get('token'), session_expires_in: 60 },
      app.public_token,
    );
    expect(later.status, JSON.stringify(later.body)).toBe(200);
    expect(later.body).toMatchObject({ organization_id: org.body.organization_id, member_created: true });
    expect((await call(app, 'DELETE', `${orgPath}/sso_connection`)).status).toBe(200);
  });

  it('allowed_sign_in_methods: SSO is refused, before provisioning, where `sso` is not allowed, and admitted where it is', async () => {
    const { app, organizationId, connection } = await orgWithConnection('acme-methods.com');
    const orgPath = `/v1/organizations/${organizationId}`;
    const restrict = async (methods: string[]) =>
      expect(
        (await call(app, 'PATCH', orgPath, { settings: { allowed_sign_in_methods: methods } })).status,
      ).toBe(200);
    const mia = fresh('mia', 'acme-methods.com');
    op.accounts[mia.id] = { email: mia.email, email_verified: true };

    await restrict(['email_otp', 'oauth']);
    const refused = await authenticate(
      app,
      tokenOf((await signIn(app, { organization_id: organizationId }, mia.id)).callback),
    );
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(expectErrorShape(refused).error_type).toBe('sign_in_method_not_allowed');
    expect((await call(app, 'GET', `${orgPath}/members`)).body.members).toEqual([]);

    await restrict(['sso']);
    const admitted = await authenticate(
      app,
      tokenOf((await signIn(app, { organization_id: organizationId }, mia.id)).callback),
    );
    expect(admitted.status, JSON.stringify(admitted.body)).toBe(200);
    expect(admitted.body).toMatchObject({ member_created: true, connection_id: connection.connection_id });
    expect(admitted.body.session.organization_id).toBe(organizationId);
  });

  it('the client secret is never in any answer, event, or stored in plain text', async () => {
    expect(answers.length).toBeGreaterThan(20);
    for (const answer of answers) expect(answer).not.toContain(SECRET);
    const { app, organizationId, connection } = await orgWithConnection('acme-eight.com');
    const events = await h.storage.events.list(app.app_id, { limit: 1000 });
    expect(JSON.stringify(events)).not.toContain(SECRET);
    const stored = await h.storage.sso.findConnection(app.app_id, { organization_id: organizationId });
    expect(stored?.id).toBe(connection.connection_id);
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(stored?.client_secret_sealed).toBeTruthy();
  });
});
