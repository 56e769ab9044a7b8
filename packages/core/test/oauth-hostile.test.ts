import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey } from '../src/index.js';
import { expectErrorShape, TEST_SECRET, testApp } from './helpers.js';
import {
  type HostileProvider,
  type IdTokenMutator,
  mutations,
  type ProviderIdentity,
  startHostileProvider,
} from './oauth-peers/hostile-provider.js';
import {
  appSettings,
  CALLBACK_URL,
  expectFailedRedirect,
  LOGIN_URL,
  type OAuthApp,
  type OAuthHarness,
  oauthApp,
  oauthHarness,
  SIGNUP_URL,
  tokenOf,
} from './oauth-peers/latchkey-oauth.js';
import { storageBackends } from './storage-backends.js';

/**
 * The hostile cases of issue 33, each its own test: a provider (or someone in the middle) hands
 * Latchkey's callback a bad state, code or ID token, or a caller aims a flow somewhere it should
 * not go. None may create a user or a link, nor put a token in a redirect.
 */

const SECRET = 'hostile-client-secret-0123456789abcdef';

describe.each(storageBackends())('OAuth hostile cases on $name', (backend) => {
  let h: OAuthHarness;
  /** RS256, discovery advertising RS256 only. */
  let hp: HostileProvider;
  /** RS256, discovery claiming `none` and HS256 as well: only the JWKS may vouch for a token. */
  let liar: HostileProvider;
  /** ES256. */
  let es: HostileProvider;
  let app: OAuthApp;
  let n = 0;
  const fresh = (tag: string): ProviderIdentity => {
    n += 1;
    const sub = `${tag}-${n}-${Math.random().toString(36).slice(2, 8)}`;
    return { sub, email: `${sub}@example.com`, email_verified: true };
  };
  const oidc = (p: HostileProvider, over: Record<string, unknown> = {}) => ({
    type: 'oidc',
    issuer: p.issuer,
    client_id: p.client_id,
    client_secret: SECRET,
    ...over,
  });
  const as = (p: HostileProvider, identity: ProviderIdentity) => (url: URL) => p.signIn(url, identity);
  const providers = () => ({
    hostile: oidc(hp),
    liar: oidc(liar),
    es: oidc(es),
    linker: oidc(hp, { link_by_verified_email: true }),
  });

  beforeAll(async () => {
    h = await oauthHarness(backend);
    hp = await startHostileProvider({ client_id: 'latchkey', client_secret: SECRET });
    liar = await startHostileProvider({
      client_id: 'latchkey',
      client_secret: SECRET,
      advertisedAlgs: ['RS256', 'HS256', 'none'],
    });
    es = await startHostileProvider({ client_id: 'latchkey', client_secret: SECRET, alg: 'ES256' });
    app = await h.app(providers());
  });
  afterEach(() => {
    for (const p of [hp, liar, es]) p.reset();
    h.clock.reset();
  });
  afterAll(async () => {
    for (const p of [hp, liar, es]) await p?.close();
    await h?.dispose();
  });

  /** Runs a sign-in whose ID token `mutate` spoils and asserts it fails with nothing created. */
  async function refused(providerId: string, p: HostileProvider, mutate: IdTokenMutator) {
    const before = await app.counts();
    const tokenRequests = p.tokenRequests();
    p.mutate = mutate;
    const redirect = await app.signIn(providerId, as(p, fresh('victim')));
    expectFailedRedirect(redirect, 'oauth_provider_error');
    expect(p.tokenRequests()).toBe(tokenRequests + 1);
    expect(await app.counts()).toEqual(before);
    return redirect;
  }

  it('a valid ID token signs in on each provider (what the cases below spoil)', async () => {
    for (const [id, p] of [
      ['hostile', hp],
      ['liar', liar],
      ['es', es],
    ] as const) {
      const res = await app.authenticate(tokenOf(await app.signIn(id, as(p, fresh(id)))));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ provider_id: id, user_created: true });
    }
  });

  it('refuses a state used once already', async () => {
    const started = await app.start('hostile');
    const back = await hp.signIn(started.location!, fresh('state'));
    tokenOf(await app.callback(back));
    const before = await app.counts();
    const tokenRequests = hp.tokenRequests();
    const again = await app.callback(back);
    expect(again.status).toBe(400);
    expect(again.location).toBeNull();
    expect(expectErrorShape(again).error_type).toBe('oauth_state_used');
    expect(hp.tokenRequests()).toBe(tokenRequests);
    expect(await app.counts()).toEqual(before);
  });

  it('a state started by another App gives a token that App alone can spend', async () => {
    const other = await h.app(providers());
    const before = { app: await app.counts(), other: await other.counts() };
    const token = tokenOf(await other.signIn('hostile', as(hp, fresh('other-app'))));

    const stolen = await app.authenticate(token);
    expect(stolen.status).toBe(404);
    expect(expectErrorShape(stolen).error_type).toBe('oauth_token_not_found');
    const bySecret = await app.authenticate(token, {}, app.secret_key);
    expect(bySecret.status).toBe(404);
    expect(await app.counts()).toEqual(before.app);

    // The refused attempts did not spend it: its own App still can, and the user is that App's.
    const own = await other.authenticate(token);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect((await other.counts()).users).toBe(before.other.users + 1);
    const cross = await app.call('GET', `/v1/auth/users/${own.body.user_id}`);
    expect(cross.status).toBe(404);
  });

  it('refuses an ID token whose nonce is not the one sent', async () => {
    await refused('hostile', hp, mutations.nonceMismatch());
  });

  it('refuses an ID token without the nonce sent', async () => {
    await refused('hostile', hp, mutations.nonceMismatch(undefined));
  });

  it('refuses an ID token issued for another audience', async () => {
    await refused('hostile', hp, mutations.wrongAudience());
  });

  it('refuses an ID token for several audiences authorized to another client (azp)', async () => {
    await refused('hostile', hp, mutations.azpOfAnotherClient());
  });

  it('refuses an expired ID token', async () => {
    await refused('hostile', hp, mutations.expired());
  });

  it('refuses an ID token from another issuer', async () => {
    await refused('hostile', hp, mutations.wrongIssuer());
    // Another issuer Latchkey trusts for another provider of the App is still the wrong one.
    await refused('hostile', hp, mutations.wrongIssuer(es.issuer));
  });

  it('refuses an unsigned ID token (alg none)', async () => {
    await refused('hostile', hp, mutations.algNone());
  });

  it('refuses an unsigned ID token (alg none) even when discovery lists none', async () => {
    await refused('liar', liar, mutations.algNone());
  });

  it('refuses an ID token signed HS256 with the public key as the secret', async () => {
    await refused('hostile', hp, mutations.hs256WithPublicKey('pem'));
    await refused('hostile', hp, mutations.hs256WithPublicKey('jwk'));
  });

  it('refuses an ID token signed HS256 with the public key even when discovery lists HS256', async () => {
    await refused('liar', liar, mutations.hs256WithPublicKey('pem'));
    await refused('liar', liar, mutations.hs256WithPublicKey('jwk'));
  });

  it('refuses an ID token signed by a key the JWKS does not hold', async () => {
    await refused('hostile', hp, mutations.foreignKey('published'));
    await refused('hostile', hp, mutations.foreignKey('unknown'));
    await refused('es', es, mutations.foreignKey('published'));
  });

  it('refuses UserInfo claims about another subject than the ID token’s', async () => {
    const before = await app.counts();
    // The ID token names no email, so the email must come from UserInfo, which speaks of someone else.
    hp.mutate = (d) => {
      const { email: _e, email_verified: _v, ...claims } = d.claims;
      return { ...d, claims };
    };
    hp.mutateUserinfo = (c) => ({ ...c, sub: 'someone-else', email: 'someone-else@example.com' });
    const redirect = await app.signIn('hostile', as(hp, fresh('userinfo')));
    expectFailedRedirect(redirect, 'oauth_provider_error');
    expect(await app.counts()).toEqual(before);
  });

  it('refuses a code replayed into another flow (the provider says invalid_grant)', async () => {
    const first = await app.start('hostile');
    const back = await hp.signIn(first.location!, fresh('code'));
    tokenOf(await app.callback(back));

    const second = await app.start('hostile');
    const secondBack = await hp.signIn(second.location!, fresh('code-again'));
    const replayed = new URL(secondBack);
    replayed.searchParams.set('code', back.searchParams.get('code')!);
    const before = await app.counts();
    const replays = hp.replayedCodes();
    expectFailedRedirect(await app.callback(replayed));
    expect(hp.replayedCodes()).toBe(replays + 1);
    expect(await app.counts()).toEqual(before);
  });

  it('answers a callback without a start with 400 JSON and calls no provider', async () => {
    const tokenRequests = hp.tokenRequests();
    const before = await app.counts();
    for (const query of ['', '?code=abc', '?code=abc&state=', '?code=abc&state=never-issued-state-value']) {
      const res = await app.callback(`${CALLBACK_URL}${query}`);
      expect(res.status, query).toBe(400);
      expect(res.location).toBeNull();
      expect(expectErrorShape(res).error_type).toBe('oauth_state_not_found');
    }
    const post = await h.latchkey.fetch(
      new Request(CALLBACK_URL, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'code=abc&state=never-issued-state-value',
      }),
    );
    expect(post.status).toBe(400);
    expect(post.headers.get('location')).toBeNull();
    expect(hp.tokenRequests()).toBe(tokenRequests);
    expect(await app.counts()).toEqual(before);
  });

  it('refuses a state past its 10 minutes', async () => {
    const started = await app.start('hostile');
    const back = await hp.signIn(started.location!, fresh('late'));
    const before = await app.counts();
    h.clock.advance(10 * 60 + 1);
    const res = await app.callback(back);
    expect(res.status).toBe(400);
    expect(expectErrorShape(res).error_type).toBe('oauth_state_expired');
    expect(await app.counts()).toEqual(before);
  });

  it('spends the Latchkey token once, and once only of 20 concurrent calls', async () => {
    const token = tokenOf(await app.signIn('hostile', as(hp, fresh('once'))));
    const first = await app.authenticate(token);
    expect(first.status).toBe(200);
    const second = await app.authenticate(token);
    expect(second.status).toBe(401);
    expect(expectErrorShape(second).error_type).toBe('oauth_token_used');

    const raced = tokenOf(await app.signIn('hostile', as(hp, fresh('race'))));
    const results = await Promise.all(
      Array.from({ length: 20 }, () => app.authenticate(raced, { session_expires_in: 60 })),
    );
    const won = results.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(won[0]!.body.session_token).toEqual(expect.any(String));
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(401);
      expect(expectErrorShape(r).error_type).toBe('oauth_token_used');
    }
  });

  it('refuses the Latchkey token past its 10 minutes', async () => {
    const token = tokenOf(await app.signIn('hostile', as(hp, fresh('stale'))));
    h.clock.advance(10 * 60 + 1);
    const res = await app.authenticate(token);
    expect(res.status).toBe(401);
    expect(expectErrorShape(res).error_type).toBe('oauth_token_expired');
  });

  it('refuses redirect URLs off the allow-list at start, as JSON, before the provider is involved', async () => {
    const authorizeRequests = hp.authorizeRequests.length;
    const evil = [
      'https://evil.example.com/oauth/login',
      'https://app.example.com.evil.com/oauth/login',
      '//evil.com/oauth/login',
      'https://evil.com\\@app.example.com/oauth/login',
      'https://app.example.com@evil.com/oauth/login',
      'javascript:alert(document.domain)//https://app.example.com/oauth/login',
      'http://app.example.com/oauth/login',
      'https://app.example.com/oauth/login/../../evil',
      'data:text/html,<script>alert(1)</script>',
    ];
    for (const url of evil) {
      for (const field of ['login_redirect_url', 'signup_redirect_url']) {
        const res = await app.start('hostile', { [field]: url });
        expect(res.status, `${field}=${url}`).toBe(400);
        expect(res.location).toBeNull();
        const body = expectErrorShape(res);
        expect(body.error_type).toBe('redirect_url_not_allowed');
      }
    }
    expect(hp.authorizeRequests.length).toBe(authorizeRequests);
  });

  it('an unverified provider email matching a user never links and is never marked verified', async () => {
    const victim = await verifiedUser('victim-unverified@example.com');
    const before = await app.counts();
    const attacker = { sub: `attacker-${n}`, email: 'victim-unverified@example.com', email_verified: false };
    const redirect = await app.signIn('linker', as(hp, attacker));
    const token = tokenOf(redirect);
    expect(`${redirect.location!.origin}${redirect.location!.pathname}`).toBe(SIGNUP_URL);
    const res = await app.authenticate(token);
    expect(res.status).toBe(200);
    expect(res.body.user_created).toBe(true);
    expect(res.body.user_id).not.toBe(victim);
    expect((await app.getUser(victim)).oauth_links).toEqual([]);
    const created = await app.getUser(res.body.user_id);
    expect(created.emails.map((e: { email: string }) => e.email)).not.toContain(attacker.email);
    expect(created.oauth_links[0]).toMatchObject({ email: attacker.email, email_verified: false });
    const after = await app.counts();
    expect(after.verifiedEmails).toBe(before.verifiedEmails);
    expect(after.users).toBe(before.users + 1);
  });

  it('an unverified provider email of a new user is not marked verified', async () => {
    const before = await app.counts();
    const identity = { ...fresh('unverified'), email_verified: false };
    const res = await app.authenticate(tokenOf(await app.signIn('linker', as(hp, identity))));
    expect(res.status).toBe(200);
    const user = await app.getUser(res.body.user_id);
    for (const e of user.emails as Array<{ email: string; verified: boolean }>)
      expect(e.verified).toBe(false);
    expect((await app.counts()).verifiedEmails).toBe(before.verifiedEmails);
  });

  it('a verified provider email never links to a user whose own address is unverified', async () => {
    // Someone registered the address without proving it: linking would hand them the account.
    const squatter = await app.call('POST', '/v1/auth/users', { email: 'squatted@example.com' });
    expect(squatter.status).toBe(200);
    const owner = { sub: `owner-${n}`, email: 'squatted@example.com', email_verified: true };
    const res = await app.authenticate(tokenOf(await app.signIn('linker', as(hp, owner))));
    expect(res.status).toBe(200);
    expect(res.body.user_id).not.toBe(squatter.body.user_id);
    expect(res.body.user_created).toBe(true);
    expect((await app.getUser(squatter.body.user_id)).oauth_links).toEqual([]);
  });

  it('an error from the provider’s authorize goes to the login URL with its values, nothing created', async () => {
    const before = await app.counts();
    const tokenRequests = hp.tokenRequests();
    hp.authorizeError = {
      error: 'access_denied',
      error_description: 'The resource owner denied the request',
    };
    const url = expectFailedRedirect(await app.signIn('hostile', as(hp, fresh('denied'))), 'access_denied');
    expect(url.searchParams.get('error_description')).toBe('The resource owner denied the request');
    expect(hp.tokenRequests()).toBe(tokenRequests);
    expect(await app.counts()).toEqual(before);
  });

  it('answers an unknown provider_id with 404 JSON', async () => {
    for (const id of ['nope', 'hostile2', 'constructor', '__proto__'.replace(/_/g, 'x')]) {
      const res = await app.start(id);
      expect(res.status).toBe(404);
      expect(res.location).toBeNull();
      expect(expectErrorShape(res).error_type).toBe('oauth_provider_not_found');
    }
  });

  it('answers a missing or bad public token at start with 401 JSON, not a redirect', async () => {
    const authorizeRequests = hp.authorizeRequests.length;
    for (const public_token of [null, '', 'pk_test_not-a-real-token', app.public_token.slice(0, -2)]) {
      const res = await app.start('hostile', { public_token });
      expect(res.status, String(public_token)).toBe(401);
      expect(res.location).toBeNull();
      expect(expectErrorShape(res).error_type).toBe('unauthorized');
    }
    expect(hp.authorizeRequests.length).toBe(authorizeRequests);
  });

  it('refuses an http issuer unless the operator allows insecure issuers', async () => {
    const strict = createLatchkey({
      storage: h.storage,
      secret: TEST_SECRET,
      clock: h.clock,
      oauth: { callbackUrl: CALLBACK_URL },
    });
    const t = await testApp(strict);
    const discovery = hp.server.requests.length;
    // The write takes an http issuer on a loopback address (the operator's option is not the App's
    // to know); start refuses it, as JSON, before fetching anything from it.
    const write = await t.call('PATCH', '/v1/app/settings', appSettings({ hostile: oidc(hp) }));
    expect(write.status).toBe(200);
    const res = await oauthApp(t, h.storage).start('hostile');
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(expectErrorShape(res).error_type).toBe('oauth_provider_misconfigured');
    // A public host over http is refused at the write already, whatever the operator allows.
    const publicHttp = await t.call(
      'PATCH',
      '/v1/app/settings',
      appSettings({ public: oidc(hp, { issuer: 'http://example.com' }) }),
    );
    expect(publicHttp.status).toBe(400);
    expect(expectErrorShape(publicHttp).error_field).toBe('oauth.providers.public.issuer');
    expect(hp.server.requests.length).toBe(discovery);
  });

  it('the login redirect of an existing user is the login URL, never the signup one', async () => {
    const identity = fresh('returning');
    const first = await app.signIn('hostile', as(hp, identity));
    expect(`${first.location!.origin}${first.location!.pathname}`).toBe(SIGNUP_URL);
    expect((await app.authenticate(tokenOf(first))).status).toBe(200);
    const second = await app.signIn('hostile', as(hp, identity));
    expect(`${second.location!.origin}${second.location!.pathname}`).toBe(LOGIN_URL);
  });

  /** A user whose address is verified (signed up by email OTP). */
  async function verifiedUser(email: string) {
    const sent = await app.call('POST', '/v1/auth/otps/email/login_or_create', { email });
    expect(sent.status).toBe(200);
    const ok = await app.call('POST', '/v1/auth/otps/verify', {
      method_id: sent.body.method_id,
      otp: h.sender.lastCode(email),
    });
    expect(ok.status).toBe(200);
    return sent.body.user_id as string;
  }
});
