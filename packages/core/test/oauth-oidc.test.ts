import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectErrorShape } from './helpers.js';
import {
  CALLBACK_URL,
  expectFailedRedirect,
  LOGIN_URL,
  type OAuthApp,
  type OAuthHarness,
  oauthHarness,
  SIGNUP_URL,
  tokenOf,
} from './oauth-peers/latchkey-oauth.js';
import { type OidcProviderServer, startOidcProvider } from './oauth-peers/oidc-provider-server.js';
import { storageBackends } from './storage-backends.js';

/**
 * Sign-in through panva's oidc-provider, a certified OpenID Connect server, as a browser would:
 * Latchkey's start, the provider's login and consent, Latchkey's callback, authenticate.
 */

const SECRET = 'oidc-provider-client-secret-0123456789abcdef';

describe.each(storageBackends())('OAuth with oidc-provider on $name', (backend) => {
  let h: OAuthHarness;
  /** Claims asked by scope at UserInfo only (oidc-provider's conformIdTokenClaims), client_secret_basic. */
  let op: OidcProviderServer;
  /** Claims in the ID token too, client_secret_post. */
  let opInIdToken: OidcProviderServer;
  let n = 0;
  /** An account id and email no other test uses. */
  const fresh = (tag: string) => {
    n += 1;
    const id = `${tag}-${n}-${Math.random().toString(36).slice(2, 8)}`;
    return { id, email: `${id}@example.com` };
  };
  const oidc = (server: OidcProviderServer, over: Record<string, unknown> = {}) => ({
    type: 'oidc',
    issuer: server.issuer,
    client_id: 'latchkey',
    client_secret: SECRET,
    scopes: ['openid', 'email', 'profile'],
    ...over,
  });
  const asAccount =
    (
      server: OidcProviderServer,
      accountId: string,
      options?: Parameters<OidcProviderServer['signInAs']>[2],
    ) =>
    (url: URL) =>
      server.signInAs(url, accountId, options);

  beforeAll(async () => {
    h = await oauthHarness(backend);
    op = await startOidcProvider({
      clients: [{ client_id: 'latchkey', client_secret: SECRET, redirect_uris: [CALLBACK_URL] }],
      claimsInIdToken: false,
      refreshTokens: true,
    });
    opInIdToken = await startOidcProvider({
      clients: [
        {
          client_id: 'latchkey',
          client_secret: SECRET,
          redirect_uris: [CALLBACK_URL],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      claimsInIdToken: true,
    });
  });
  // The providers sign with the system time: a test that moves Latchkey's clock puts it back.
  afterEach(() => h.clock.reset());
  afterAll(async () => {
    await op?.close();
    await opInIdToken?.close();
    await h?.dispose();
  });

  /** Signs `accountId` in through `providerId` and authenticates the token, asking for a session. */
  async function signInAndAuthenticate(
    app: OAuthApp,
    providerId: string,
    server: OidcProviderServer,
    accountId: string,
    query?: Record<string, string | null>,
  ) {
    const redirect = await app.signIn(providerId, asAccount(server, accountId), query);
    const token = tokenOf(redirect);
    const res = await app.authenticate(token, { session_expires_in: 60 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { redirect, token, body: res.body };
  }

  it('signs a new user up, then the same identity signs that user in again: one user, one link', async () => {
    const app = await h.app({ local: oidc(op) });
    const alice = fresh('alice');
    op.accounts[alice.id] = { email: alice.email, email_verified: true, name: 'Alice Liddell' };

    const started = await app.start('local');
    expect(started.status).toBe(302);
    const authorize = started.location!;
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${op.issuer}/auth`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: 'latchkey',
      redirect_uri: CALLBACK_URL,
      response_type: 'code',
      code_challenge_method: 'S256',
      state: expect.any(String),
      nonce: expect.any(String),
      code_challenge: expect.any(String),
    });
    expect(authorize.searchParams.get('scope')!.split(' ')).toEqual(
      expect.arrayContaining(['openid', 'email', 'profile']),
    );

    const first = await app.callback(await op.signInAs(authorize, alice.id));
    expect(`${first.location!.origin}${first.location!.pathname}`).toBe(SIGNUP_URL);
    const signedUp = await app.authenticate(tokenOf(first), { session_expires_in: 60 });
    expect(signedUp.status, JSON.stringify(signedUp.body)).toBe(200);
    expect(signedUp.body).toMatchObject({
      user_id: expect.stringMatching(/^user_/),
      provider_id: 'local',
      provider_subject: alice.id,
      link_id: expect.any(String),
      user_created: true,
      session_token: expect.any(String),
      session_jwt: expect.any(String),
    });
    const { user_id, link_id } = signedUp.body;
    expect(signedUp.body.session.factors).toEqual([
      {
        type: 'oauth',
        delivery_channel: 'oauth',
        method: {
          method_id: link_id,
          method_type: 'oauth',
          oauth_link_id: link_id,
          provider_id: 'local',
          provider_subject: alice.id,
          email: alice.email,
          last_verified_at: expect.any(Number),
        },
      },
    ]);
    // The session is a real one.
    const session = await app.call(
      'POST',
      '/v1/auth/sessions/authenticate',
      { session_token: signedUp.body.session_token },
      app.public_token,
    );
    expect(session.status).toBe(200);
    expect(session.body.user_id).toBe(user_id);

    const again = await signInAndAuthenticate(app, 'local', op, alice.id);
    expect(`${again.redirect.location!.origin}${again.redirect.location!.pathname}`).toBe(LOGIN_URL);
    expect(again.body).toMatchObject({ user_id, link_id, user_created: false, provider_subject: alice.id });
    expect(await app.counts()).toMatchObject({ users: 1, links: 1 });

    const user = await app.getUser(user_id);
    expect(user.oauth_links).toEqual([
      {
        link_id,
        provider_id: 'local',
        issuer: op.issuer,
        subject: alice.id,
        email: alice.email,
        email_verified: true,
        created_at: expect.any(Number),
      },
    ]);
    // A verified provider email of a new user becomes the user's verified email.
    expect(user.emails).toEqual([expect.objectContaining({ email: alice.email, verified: true })]);
  });

  it('takes the scope claims from UserInfo when the provider keeps them out of the ID token', async () => {
    const app = await h.app({ local: oidc(op), inline: oidc(opInIdToken) });
    const carol = fresh('carol');
    op.accounts[carol.id] = { email: carol.email, email_verified: true, name: 'Carol' };
    const userinfoBefore = op.userinfoRequests();
    const viaUserinfo = await signInAndAuthenticate(app, 'local', op, carol.id);
    expect(op.userinfoRequests()).toBe(userinfoBefore + 1);
    expect((await app.getUser(viaUserinfo.body.user_id)).oauth_links[0]).toMatchObject({
      email: carol.email,
      email_verified: true,
    });

    const dan = fresh('dan');
    opInIdToken.accounts[dan.id] = { email: dan.email, email_verified: false, name: 'Dan' };
    const inline = await signInAndAuthenticate(app, 'inline', opInIdToken, dan.id);
    const link = (await app.getUser(inline.body.user_id)).oauth_links[0];
    expect(link).toMatchObject({ email: dan.email, email_verified: false, issuer: opInIdToken.issuer });
  });

  it('keeps the user by issuer and subject when the provider changes the email, and records the new one', async () => {
    const app = await h.app({ local: oidc(op) });
    const erin = fresh('erin');
    op.accounts[erin.id] = { email: erin.email, email_verified: true };
    const first = await signInAndAuthenticate(app, 'local', op, erin.id);
    const changed = `changed-${erin.email}`;
    op.accounts[erin.id] = { email: changed, email_verified: true };
    const second = await signInAndAuthenticate(app, 'local', op, erin.id);
    expect(second.body).toMatchObject({ user_id: first.body.user_id, user_created: false });
    expect((await app.getUser(first.body.user_id)).oauth_links).toEqual([
      expect.objectContaining({ subject: erin.id, email: changed }),
    ]);
    expect(await app.counts()).toMatchObject({ users: 1, links: 1 });
  });

  /** A user who signed up by email OTP: their address is verified. */
  async function otpUser(app: OAuthApp, email: string) {
    const sent = await app.call('POST', '/v1/auth/otps/email/login_or_create', { email });
    expect(sent.status).toBe(200);
    const verified = await app.call('POST', '/v1/auth/otps/verify', {
      method_id: sent.body.method_id,
      otp: h.sender.lastCode(email),
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    return sent.body.user_id as string;
  }

  it('link_by_verified_email on: a new identity with the verified email of a verified user signs that user in', async () => {
    const app = await h.app({ local: oidc(op, { link_by_verified_email: true }) });
    const frank = fresh('frank');
    const userId = await otpUser(app, frank.email);
    op.accounts[frank.id] = { email: frank.email, email_verified: true };
    const before = await app.counts();
    const linked = await signInAndAuthenticate(app, 'local', op, frank.id);
    expect(`${linked.redirect.location!.origin}${linked.redirect.location!.pathname}`).toBe(LOGIN_URL);
    expect(linked.body).toMatchObject({ user_id: userId, user_created: false });
    expect(await app.counts()).toEqual({ ...before, links: before.links + 1 });
    expect((await app.getUser(userId)).oauth_links).toEqual([
      expect.objectContaining({ link_id: linked.body.link_id, subject: frank.id }),
    ]);
  });

  it('link_by_verified_email off (the oidc default): the same case creates a new user, without the email', async () => {
    const app = await h.app({ local: oidc(op) });
    const gina = fresh('gina');
    const userId = await otpUser(app, gina.email);
    op.accounts[gina.id] = { email: gina.email, email_verified: true };
    const before = await app.counts();
    const created = await signInAndAuthenticate(app, 'local', op, gina.id);
    expect(`${created.redirect.location!.origin}${created.redirect.location!.pathname}`).toBe(SIGNUP_URL);
    expect(created.body.user_created).toBe(true);
    expect(created.body.user_id).not.toBe(userId);
    expect(await app.counts()).toEqual({ ...before, users: before.users + 1, links: before.links + 1 });
    expect((await app.getUser(userId)).oauth_links).toEqual([]);
    // The address stays the existing user's: it is not attached to the new one.
    const newUser = await app.getUser(created.body.user_id);
    expect(newUser.emails.map((e: { email: string }) => e.email)).not.toContain(gina.email);
    expect(newUser.oauth_links[0]).toMatchObject({ email: gina.email, email_verified: true });
  });

  /** Signs in `count` new accounts of `op` and returns the JWKS fetches they made. */
  async function signInsFetching(app: OAuthApp, count: number) {
    const before = op.jwksFetches();
    for (let i = 0; i < count; i += 1) {
      const someone = fresh('jwks');
      op.accounts[someone.id] = { email: someone.email, email_verified: true };
      await signInAndAuthenticate(app, 'local', op, someone.id);
    }
    return op.jwksFetches() - before;
  }

  it('does one token exchange per callback and fetches the JWKS once across sign-ins', async () => {
    const app = await h.app({ local: oidc(op) });
    const jwksBefore = op.jwksFetches();
    for (let i = 0; i < 3; i += 1) {
      const hal = fresh('hal');
      op.accounts[hal.id] = { email: hal.email, email_verified: true };
      const tokenBefore = op.tokenRequests();
      await signInAndAuthenticate(app, 'local', op, hal.id);
      expect(op.tokenRequests()).toBe(tokenBefore + 1);
    }
    // Earlier tests on this provider may have filled the cache already: at most one fetch, and
    // the signature was checked against a JWKS fetched at some point.
    expect(op.jwksFetches() - jwksBefore).toBeLessThanOrEqual(1);
    expect(op.jwksFetches()).toBeGreaterThanOrEqual(1);
    // Another App with the same provider shares the issuer's cached keys.
    expect(await signInsFetching(await h.app({ local: oidc(op) }), 2)).toBe(0);
  });

  it('a key rotation costs one JWKS fetch, and every sign-in after it succeeds', async () => {
    const app = await h.app({ local: oidc(op) });
    await signInsFetching(app, 1);
    // oauth4webapi refetches a JWKS for an unknown kid once its copy is a minute old: the
    // provider rotates a minute after Latchkey last fetched its keys.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      op.rotateKeys();
      expect(await signInsFetching(app, 3)).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a key rotation within a minute of the last fetch costs no sign-in: the keys are read afresh once', async () => {
    const app = await h.app({ local: oidc(op) });
    await signInsFetching(app, 1);
    op.rotateKeys();
    const before = op.jwksFetches();
    const someone = fresh('rotated');
    op.accounts[someone.id] = { email: someone.email, email_verified: true };
    // oauth4webapi refetches no JWKS younger than a minute: the service reads the metadata afresh.
    tokenOf(await app.signIn('local', asAccount(op, someone.id)));
    expect(op.jwksFetches()).toBe(before + 1);
    expect(await signInsFetching(app, 3)).toBe(0);
    expect(op.jwksFetches()).toBe(before + 1);
  });

  it('a provider error comes back to the login redirect URL with its error, and nothing is created', async () => {
    const app = await h.app({ local: oidc(op) });
    const ivy = fresh('ivy');
    op.accounts[ivy.id] = { email: ivy.email, email_verified: true };
    const before = await app.counts();
    const tokens = op.tokenRequests();
    for (const options of [{ deny: true }, { consent: false }]) {
      const redirect = await app.signIn('local', asAccount(op, ivy.id, options));
      const url = expectFailedRedirect(redirect, 'access_denied');
      expect(url.searchParams.get('error_description')).toBe('The user refused the sign-in.');
    }
    expect(op.tokenRequests()).toBe(tokens);
    expect(await app.counts()).toEqual(before);
  });

  it('the browser’s own PKCE: authenticate needs the verifier of the challenge given at start', async () => {
    const app = await h.app({ local: oidc(op) });
    const verifier = 'browser-verifier-0123456789-0123456789-0123456789';
    const challenge = await sha256Base64url(verifier);
    const jack = fresh('jack');
    op.accounts[jack.id] = { email: jack.email, email_verified: true };
    const pkce = { code_challenge: challenge, code_challenge_method: 'S256' };

    const missing = await app.authenticate(tokenOf(await app.signIn('local', asAccount(op, jack.id), pkce)));
    expect(missing.status).toBe(400);
    expect(expectErrorShape(missing).error_type).toBe('oauth_code_verifier_mismatch');
    const wrong = await app.authenticate(tokenOf(await app.signIn('local', asAccount(op, jack.id), pkce)), {
      code_verifier: `${verifier}x`,
    });
    expect(wrong.status).toBe(400);
    expect(expectErrorShape(wrong).error_type).toBe('oauth_code_verifier_mismatch');
    const right = await app.authenticate(tokenOf(await app.signIn('local', asAccount(op, jack.id), pkce)), {
      code_verifier: verifier,
    });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
  });

  it('keeps the provider’s tokens only when store_tokens is on, and refreshes them once expired', async () => {
    const app = await h.app({ stored: oidc(op, { store_tokens: true }), plain: oidc(op) });
    const kim = fresh('kim');
    op.accounts[kim.id] = { email: kim.email, email_verified: true };
    const { body } = await signInAndAuthenticate(app, 'stored', op, kim.id);
    const tokens = await h.latchkey.oauth.providerTokens(app.app_id, body.user_id, 'stored');
    expect(tokens).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String) });
    expect(tokens!.expires_at).toBeGreaterThan(h.clock.now() / 1000);
    expect(await userinfoStatus(op, tokens!.access_token)).toBe(200);
    // Read again before expiry: the same tokens, no call to the provider.
    const tokenRequests = op.tokenRequests();
    expect(await h.latchkey.oauth.providerTokens(app.app_id, body.user_id, 'stored')).toEqual(tokens);
    expect(op.tokenRequests()).toBe(tokenRequests);

    h.clock.advance(2 * 3600);
    const refreshed = await h.latchkey.oauth.providerTokens(app.app_id, body.user_id, 'stored');
    expect(op.tokenRequests()).toBe(tokenRequests + 1);
    expect(refreshed!.access_token).not.toBe(tokens!.access_token);
    expect(refreshed!.expires_at).toBeGreaterThan(h.clock.now() / 1000);
    expect(await userinfoStatus(op, refreshed!.access_token)).toBe(200);

    // Not kept for a provider without store_tokens, nor for one the user has no link with.
    const lee = fresh('lee');
    op.accounts[lee.id] = { email: lee.email, email_verified: true };
    const plain = await signInAndAuthenticate(app, 'plain', op, lee.id);
    expect(await h.latchkey.oauth.providerTokens(app.app_id, plain.body.user_id, 'plain')).toBeNull();
    expect(await h.latchkey.oauth.providerTokens(app.app_id, plain.body.user_id, 'stored')).toBeNull();
  });

  it('a signed-in user links a second provider with their session; unlink refuses the last method', async () => {
    const app = await h.app({ local: oidc(op), inline: oidc(opInIdToken) });
    const mia = fresh('mia');
    // No email from either provider: the links are the user's only ways in.
    op.accounts[mia.id] = { name: 'Mia' };
    opInIdToken.accounts[mia.id] = { name: 'Mia' };
    const first = await signInAndAuthenticate(app, 'local', op, mia.id);
    const userId = first.body.user_id;
    const eventsBefore = h.events.length;

    const linked = await signInAndAuthenticate(app, 'inline', opInIdToken, mia.id, {
      session_token: first.body.session_token,
    });
    expect(linked.body).toMatchObject({ user_id: userId, user_created: false, provider_id: 'inline' });
    const user = await app.getUser(userId);
    expect(user.oauth_links.map((l: { provider_id: string }) => l.provider_id)).toEqual(['local', 'inline']);
    expect(h.events.slice(eventsBefore).filter((e) => e.type === 'user.oauth_linked')).toEqual([
      expect.objectContaining({
        app_id: app.app_id,
        data: {
          user_id: userId,
          link_id: linked.body.link_id,
          provider_id: 'inline',
          issuer: opInIdToken.issuer,
        },
      }),
    ]);

    // The same identity cannot be linked to a second user.
    const nora = fresh('nora');
    op.accounts[nora.id] = { email: nora.email, email_verified: true };
    const other = await signInAndAuthenticate(app, 'local', op, nora.id);
    const elsewhere = await app.signIn('local', asAccount(op, mia.id), {
      session_token: other.body.session_token,
    });
    expectFailedRedirect(elsewhere, 'oauth_identity_linked_elsewhere');

    const del = (linkId: string) => app.call('DELETE', `/v1/auth/users/oauth/${linkId}/delete`);
    const removed = await del(first.body.link_id);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body).toMatchObject({ user_id: userId, message: expect.any(String) });
    expect(h.events.filter((e) => e.type === 'user.oauth_unlinked').at(-1)).toMatchObject({
      app_id: app.app_id,
      data: { user_id: userId, link_id: first.body.link_id, provider_id: 'local', issuer: op.issuer },
    });
    expect((await app.getUser(userId)).oauth_links).toEqual([
      expect.objectContaining({ link_id: linked.body.link_id }),
    ]);

    // The remaining link is all the user has.
    const last = await del(linked.body.link_id);
    expect(last.status).toBe(409);
    expect(expectErrorShape(last).error_type).toBe('last_sign_in_method');
    expect((await app.getUser(userId)).oauth_links).toHaveLength(1);
    const gone = await del(first.body.link_id);
    expect(gone.status).toBe(404);
    expect(expectErrorShape(gone).error_type).toBe('oauth_link_not_found');
    // Unlinking needs the secret key.
    const byPublic = await app.call(
      'DELETE',
      `/v1/auth/users/oauth/${linked.body.link_id}/delete`,
      undefined,
      app.public_token,
    );
    expect(byPublic.status).toBeGreaterThanOrEqual(401);
    expect(byPublic.status).toBeLessThan(404);
  });

  it('unlinks the only link of a user who also has a verified email', async () => {
    const app = await h.app({ local: oidc(op) });
    const olga = fresh('olga');
    op.accounts[olga.id] = { email: olga.email, email_verified: true };
    const { body } = await signInAndAuthenticate(app, 'local', op, olga.id);
    const removed = await app.call('DELETE', `/v1/auth/users/oauth/${body.link_id}/delete`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect((await app.getUser(body.user_id)).oauth_links).toEqual([]);
  });
});

async function sha256Base64url(text: string) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Buffer.from(digest).toString('base64url');
}

async function userinfoStatus(server: OidcProviderServer, accessToken: string) {
  const res = await fetch(`${server.issuer}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
  return res.status;
}
