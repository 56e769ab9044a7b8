import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OidcProviderServer,
  startOidcProvider,
} from '../../core/test/oauth-peers/oidc-provider-server.js';
import { pkceChallenge } from '../src/pkce.js';
import { baseUrl, caught, inProcessLatchkey, providerTrip } from './in-process.js';

// The client in Node against a real Latchkey, in process, and panva's oidc-provider as an
// organization's identity provider: the browser's redirects are played by fetch.
const landing = 'https://app.example.com/sso';
const callbackUrl = `${baseUrl}/v1/auth/sso/callback`;
const { latchkey, app, sentBodies, client } = await inProcessLatchkey('SSO client', {
  secret: 's'.repeat(40),
  oauth: { allowInsecureIssuers: true },
  sso: { callbackUrl },
});
const backend = async (method: string, path: string, body?: unknown) => {
  const res = await latchkey.fetch(
    new Request(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${app.secret_key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
let provider: OidcProviderServer;
let organizationId: string;

beforeAll(async () => {
  provider = await startOidcProvider({
    clients: [{ client_id: 'acme', client_secret: 'c'.repeat(32), redirect_uris: [callbackUrl] }],
  });
  await latchkey.apps.patchSettings(app.app_id, {
    redirect_urls: { login: [landing], default_login: landing },
  });
  const org = await backend('POST', '/v1/organizations', {
    name: 'Acme',
    slug: 'acme',
    settings: { default_role: 'admin' },
  });
  expect(org.status, JSON.stringify(org.body)).toBe(200);
  organizationId = org.body.organization_id;
  const connection = await backend('POST', `/v1/organizations/${organizationId}/sso_connection`, {
    issuer: provider.issuer,
    client_id: 'acme',
    client_secret: 'c'.repeat(32),
    email_domains: ['acme.com'],
  });
  expect(connection.status, JSON.stringify(connection.body)).toBe(200);
});
afterAll(async () => {
  await provider?.close();
  await latchkey.close();
});

const { account, landingUrl } = providerTrip(latchkey, () => provider, 'acme.com');

describe('@latchkey/client sso', () => {
  it('startUrl: the start route with the public token, one way of naming the organization, the redirect and an S256 challenge', async () => {
    const lk = client();
    const { url } = await lk.sso.startUrl({ emailDomain: 'acme.com', redirectUrl: landing });
    const parsed = new URL(url);
    expect(`${parsed.origin}${parsed.pathname}`).toBe(`${baseUrl}/v1/auth/sso/start`);
    expect(Object.fromEntries(parsed.searchParams)).toEqual({
      public_token: app.public_token,
      email_domain: 'acme.com',
      redirect_url: landing,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    });
    // It leads to the organization's provider, and the verifier sent is the challenge's.
    const back = new URL(await landingUrl(url, account('pkce')));
    expect(back.searchParams.get('token_type')).toBe('sso');
    sentBodies.length = 0;
    expect(await lk.sso.handleRedirect(back)).toMatchObject({ organization_id: organizationId });
    const body = sentBodies[0] as { code_verifier: string };
    expect(await pkceChallenge(body.code_verifier)).toBe(parsed.searchParams.get('code_challenge'));

    // A later start keeps its own verifier: each names the organization its own way.
    for (const [options, name, value] of [
      [{ organizationId }, 'organization_id', organizationId],
      [{ slug: 'acme' }, 'slug', 'acme'],
    ] as const) {
      const q = new URL((await lk.sso.startUrl(options)).url).searchParams;
      expect(q.get(name)).toBe(value);
      expect([...q.keys()].sort()).toEqual(
        ['code_challenge', 'code_challenge_method', name, 'public_token'].sort(),
      );
    }
    // Not exactly one way of naming it: refused before any request.
    for (const bad of [{}, { slug: 'acme', emailDomain: 'acme.com' }]) {
      const err = await caught(lk.sso.startUrl(bad as never));
      expect(err).toMatchObject({ status: 0, error_type: bad.slug ? 'invalid_field' : 'missing_field' });
    }
    // pkce: false sends none, and authenticate then sends no verifier.
    const plain = (await lk.sso.startUrl({ slug: 'acme', pkce: false })).url;
    expect(new URL(plain).searchParams.has('code_challenge')).toBe(false);
    sentBodies.length = 0;
    expect(await lk.sso.handleRedirect(await landingUrl(plain, account('plain')))).toMatchObject({
      member_created: true,
    });
    expect(sentBodies[0]).not.toHaveProperty('code_verifier');
    lk.close();
  });

  it('signs a new user in as a member with the default role, in a session of the organization the client holds', async () => {
    const grace = account('grace');
    const lk = client();
    const back = await landingUrl((await lk.sso.startUrl({ organizationId })).url, grace);
    const signedIn = await lk.sso.handleRedirect(back);
    expect(signedIn).toMatchObject({
      organization_id: organizationId,
      member_id: expect.stringMatching(/^orgmember_/),
      member_created: true,
      user_created: true,
      connection_id: expect.stringMatching(/^ssoconn_/),
      session_token: expect.any(String),
      session_jwt: expect.any(String),
    });
    expect(lk.session.get()).toMatchObject({
      user_id: signedIn!.user_id,
      session_token: signedIn!.session_token,
    });
    const checked = await latchkey.sessions.check({
      app_id: app.app_id,
      session_jwt: signedIn!.session_jwt,
      mode: 'jwt',
    });
    expect(checked).toMatchObject({ organization_id: organizationId, roles: ['admin'] });

    // The token is spent: the same landing URL again is refused.
    expect(await caught(lk.sso.handleRedirect(back))).toMatchObject({
      status: 401,
      error_type: 'sso_token_used',
    });
    lk.close();
  });

  it('a token without the verifier of the tab that started is refused', async () => {
    const starter = client();
    const back = await landingUrl((await starter.sso.startUrl({ slug: 'acme' })).url, account('stolen'));
    const thief = client();
    expect(await caught(thief.sso.handleRedirect(back))).toMatchObject({
      status: 400,
      error_type: 'oauth_code_verifier_mismatch',
    });
    expect(thief.session.get()).toBeNull();
    starter.close();
    thief.close();
  });

  it('handleRedirect: null without an sso token or error; the callback’s errors typed', async () => {
    const lk = client();
    expect(await lk.sso.handleRedirect(landing)).toBeNull();
    expect(await lk.sso.handleRedirect(`${landing}?token=abc&token_type=oauth`)).toBeNull();
    const outside = await caught(
      lk.sso.handleRedirect(
        await landingUrl((await lk.sso.startUrl({ slug: 'acme' })).url, account('mallory', 'elsewhere.com')),
      ),
    );
    expect(outside).toMatchObject({ status: 0, error_type: 'sso_email_domain_not_allowed' });
    const odd = await caught(lk.sso.handleRedirect(`${landing}?error=weird_thing`));
    expect(odd).toMatchObject({ error_type: 'oauth_provider_error' });
    expect(odd.message).toContain('weird_thing');
    // A start naming no organization of the App answers 404 at the start route.
    const none = await latchkey.fetch(new Request((await lk.sso.startUrl({ slug: 'nobody' })).url));
    expect(none.status).toBe(404);
    lk.close();
  });
});
