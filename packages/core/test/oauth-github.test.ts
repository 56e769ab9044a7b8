import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type GitHubServer, type GitHubUser, startGitHubServer } from './oauth-peers/github-server.js';
import {
  expectFailedRedirect,
  LOGIN_URL,
  type OAuthApp,
  type OAuthHarness,
  oauthHarness,
  SIGNUP_URL,
  tokenOf,
} from './oauth-peers/latchkey-oauth.js';
import { storageBackends } from './storage-backends.js';

/**
 * The GitHub preset (OAuth 2.0 without OpenID Connect) against a local server speaking GitHub's
 * documented endpoints: the identity is GitHub's numeric user id, the email its primary verified one.
 */

const APP = { client_id: 'Iv1.latchkeytest', client_secret: 'github-client-secret-0123456789abcdef' };

describe.each(storageBackends())('OAuth with GitHub on $name', (backend) => {
  let h: OAuthHarness;
  let gh: GitHubServer;
  let app: OAuthApp;
  let nextId = 5_000_000;
  /** A GitHub account no other test uses, added to the server. */
  const user = (emails: (login: string) => GitHubUser['emails'], over: Partial<GitHubUser> = {}) => {
    nextId += 1;
    const login = `octo-${nextId}`;
    const u: GitHubUser = {
      id: nextId,
      login,
      name: 'Octo Cat',
      email: null,
      emails: emails(login),
      ...over,
    };
    gh.users.set(u.id, u);
    return u;
  };
  const primaryVerified = (login: string) => [
    { email: `${login}@example.com`, primary: true, verified: true, visibility: 'private' as const },
  ];
  const github = (over: Record<string, unknown> = {}) => ({
    type: 'github',
    client_id: APP.client_id,
    client_secret: APP.client_secret,
    base_url: gh.url,
    api_url: gh.apiUrl,
    ...over,
  });
  const as = (u: GitHubUser) => (url: URL) => gh.signInAs(url, u.id);

  beforeAll(async () => {
    h = await oauthHarness(backend);
    gh = await startGitHubServer(APP);
    app = await h.app({ github: github(), linker: github({ link_by_verified_email: true }) });
  });
  afterEach(() => {
    gh.deny = false;
  });
  afterAll(async () => {
    await gh?.close();
    await h?.dispose();
  });

  it('signs a user up by their GitHub id and primary verified email, then in again', async () => {
    const octo = user(primaryVerified);
    const tokenRequests = gh.tokenRequests();
    const started = await app.start('github');
    expect(started.status).toBe(302);
    const authorize = started.location!;
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${gh.url}/login/oauth/authorize`);
    expect(authorize.searchParams.get('client_id')).toBe(APP.client_id);
    expect(authorize.searchParams.get('state')).toEqual(expect.any(String));
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('scope')!.split(/[ ,]/)).toContain('user:email');

    const redirect = await app.callback(await gh.signInAs(authorize, octo.id));
    expect(`${redirect.location!.origin}${redirect.location!.pathname}`).toBe(SIGNUP_URL);
    // One exchange, which the server checked against the secret and the PKCE challenge.
    expect(gh.tokenRequests()).toBe(tokenRequests + 1);
    expect(gh.tokenErrors).toEqual([]);
    const res = await app.authenticate(tokenOf(redirect), { session_expires_in: 60 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      provider_id: 'github',
      provider_subject: String(octo.id),
      user_created: true,
    });
    expect(res.body.session.factors[0]).toMatchObject({
      type: 'oauth',
      method: { provider_id: 'github', provider_subject: String(octo.id), email: octo.emails[0]!.email },
    });
    const stored = await app.getUser(res.body.user_id);
    expect(stored.oauth_links).toEqual([
      expect.objectContaining({
        provider_id: 'github',
        issuer: new URL(gh.url).origin,
        subject: String(octo.id),
        email: octo.emails[0]!.email,
        email_verified: true,
      }),
    ]);

    const again = await app.signIn('github', as(octo));
    expect(`${again.location!.origin}${again.location!.pathname}`).toBe(LOGIN_URL);
    const second = await app.authenticate(tokenOf(again));
    expect(second.body).toMatchObject({ user_id: res.body.user_id, user_created: false });
  });

  it('takes the primary verified email, not a public profile email or another verified one', async () => {
    const octo = user((login) => [
      { email: `${login}-work@example.com`, primary: false, verified: true, visibility: 'public' },
      { email: `${login}@example.com`, primary: true, verified: true, visibility: 'private' },
      { email: `${login}-old@example.com`, primary: false, verified: false, visibility: null },
    ]);
    octo.email = `${octo.login}-work@example.com`;
    const res = await app.authenticate(tokenOf(await app.signIn('github', as(octo))));
    expect(res.status).toBe(200);
    const link = (await app.getUser(res.body.user_id)).oauth_links[0];
    expect(link).toMatchObject({ email: `${octo.login}@example.com`, email_verified: true });
  });

  it('does not trust an unverified primary email: no linking to its owner, never marked verified', async () => {
    const address = `owner-${nextId}@example.com`;
    const sent = await app.call('POST', '/v1/auth/otps/email/login_or_create', { email: address });
    const verified = await app.call('POST', '/v1/auth/otps/verify', {
      method_id: sent.body.method_id,
      otp: h.sender.lastCode(address),
    });
    expect(verified.status).toBe(200);
    const owner = sent.body.user_id;
    const before = await app.counts();

    const octo = user(() => [{ email: address, primary: true, verified: false, visibility: 'private' }]);
    const res = await app.authenticate(tokenOf(await app.signIn('linker', as(octo))));
    expect(res.status).toBe(200);
    expect(res.body.user_created).toBe(true);
    expect(res.body.user_id).not.toBe(owner);
    expect((await app.getUser(owner)).oauth_links).toEqual([]);
    const link = (await app.getUser(res.body.user_id)).oauth_links[0];
    expect(link.email_verified).toBe(false);
    const after = await app.counts();
    expect(after.verifiedEmails).toBe(before.verifiedEmails);
  });

  it('links by the primary verified email when the App allows it for the provider', async () => {
    const octo = user(primaryVerified);
    const address = octo.emails[0]!.email;
    const sent = await app.call('POST', '/v1/auth/otps/email/login_or_create', { email: address });
    await app.call('POST', '/v1/auth/otps/verify', {
      method_id: sent.body.method_id,
      otp: h.sender.lastCode(address),
    });
    const res = await app.authenticate(tokenOf(await app.signIn('linker', as(octo))));
    expect(res.body).toMatchObject({ user_id: sent.body.user_id, user_created: false });
  });

  it('keeps the same user when the GitHub login and emails change: the identity is the numeric id', async () => {
    const octo = user(primaryVerified);
    const first = await app.authenticate(tokenOf(await app.signIn('github', as(octo))));
    expect(first.status).toBe(200);
    const before = await app.counts();

    const oldLogin = octo.login;
    octo.login = `renamed-${oldLogin}`;
    octo.emails = [
      { email: `${octo.login}@example.org`, primary: true, verified: true, visibility: 'private' },
    ];
    const second = await app.authenticate(tokenOf(await app.signIn('github', as(octo))));
    expect(second.body).toMatchObject({ user_id: first.body.user_id, user_created: false });
    expect(await app.counts()).toEqual(before);

    // Another account taking the old login is another identity.
    const squatter = user(primaryVerified, { login: oldLogin });
    const third = await app.authenticate(tokenOf(await app.signIn('github', as(squatter))));
    expect(third.body.user_id).not.toBe(first.body.user_id);
    expect(third.body.user_created).toBe(true);
  });

  it('fails the sign-in when GitHub refuses the code (an error with status 200), nothing created', async () => {
    const octo = user(primaryVerified);
    const started = await app.start('github');
    const back = await gh.signInAs(started.location!, octo.id);
    const tampered = new URL(back);
    tampered.searchParams.set('code', 'not-a-code-github-issued');
    const before = await app.counts();
    expectFailedRedirect(await app.callback(tampered));
    expect(gh.tokenErrors.at(-1)).toBe('bad_verification_code');
    expect(await app.counts()).toEqual(before);
  });

  it('fails the sign-in when the client secret is wrong, nothing created', async () => {
    const wrong = await h.app({ github: github({ client_secret: 'not-the-secret' }) });
    const before = await wrong.counts();
    expectFailedRedirect(await wrong.signIn('github', as(user(primaryVerified))));
    expect(gh.tokenErrors.at(-1)).toBe('incorrect_client_credentials');
    expect(await wrong.counts()).toEqual(before);
  });

  it('a user who refuses on GitHub comes back to the login URL with access_denied', async () => {
    gh.deny = true;
    const before = await app.counts();
    const url = expectFailedRedirect(await app.signIn('github', as(user(primaryVerified))), 'access_denied');
    expect(url.searchParams.get('error_description')).toBe('The user has denied your application access.');
    expect(await app.counts()).toEqual(before);
  });
});
