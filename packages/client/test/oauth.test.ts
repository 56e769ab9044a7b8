import { createLatchkey } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OidcProviderServer,
  startOidcProvider,
} from '../../core/test/oauth-peers/oidc-provider-server.js';
import { createLatchkeyClient, isLatchkeyClientError, type LatchkeyClientError } from '../src/index.js';
import { pkceChallenge } from '../src/pkce.js';

// The client in Node against a real Latchkey, in process, and panva's oidc-provider on a local
// port: the browser's part (the redirects) is played by fetch, the provider's pages by its harness.
const baseUrl = 'http://latchkey.test';
const landing = 'http://app.test/oauth';
const latchkey = createLatchkey({
  storage: memoryStorage(),
  secret: 'o'.repeat(40),
  sender: { send: async () => {} },
  oauth: { callbackUrl: `${baseUrl}/v1/auth/oauth/callback`, allowInsecureIssuers: true },
});
const app = await latchkey.apps.create({ name: 'OAuth client' });
const sentBodies: unknown[] = [];
const inProcess: typeof fetch = async (input, init) => {
  if (init?.body) sentBodies.push(JSON.parse(String(init.body)));
  return latchkey.fetch(new Request(input as string, init));
};
let provider: OidcProviderServer;

beforeAll(async () => {
  provider = await startOidcProvider({
    clients: [
      {
        client_id: 'latchkey',
        client_secret: 's'.repeat(32),
        redirect_uris: [`${baseUrl}/v1/auth/oauth/callback`],
      },
    ],
    accounts: {
      ada: { email: 'ada@example.com', email_verified: true },
      bob: { email: 'bob@example.com', email_verified: true },
    },
  });
  await latchkey.apps.updateSettings(app.app_id, {
    ...(await latchkey.apps.get(app.app_id)).settings,
    redirect_urls: { login: [landing], signup: [landing] },
    oauth: {
      providers: {
        local: {
          type: 'oidc',
          issuer: provider.issuer,
          client_id: 'latchkey',
          client_secret: 's'.repeat(32),
        },
      },
    },
  } as never);
});
afterAll(async () => {
  await provider?.close();
  await latchkey.close();
});

const client = () => createLatchkeyClient({ publicToken: app.public_token, baseUrl, fetch: inProcess });

const caught = async (promise: Promise<unknown>): Promise<LatchkeyClientError> => {
  try {
    await promise;
  } catch (e) {
    if (isLatchkeyClientError(e)) return e;
    throw e;
  }
  throw new Error('expected a LatchkeyClientError');
};

/** The browser's trip: start → provider (signed in as `account`) → callback → the App's page. */
async function landingUrl(
  startUrl: string,
  account: string,
  options: { deny?: boolean } = {},
): Promise<string> {
  const started = await latchkey.fetch(new Request(startUrl));
  expect(started.status, await started.clone().text()).toBe(302);
  const atCallback = await provider.signInAs(started.headers.get('location')!, account, options);
  const back = await latchkey.fetch(new Request(atCallback));
  expect(back.status).toBe(302);
  return back.headers.get('location')!;
}

describe('@latchkey/client oauth', () => {
  it('startUrl: the start route with the public token, the redirects and an S256 challenge of the verifier it keeps', async () => {
    const lk = client();
    const { url } = await lk.oauth.startUrl('local', {
      loginRedirectUrl: landing,
      signupRedirectUrl: landing,
    });
    const parsed = new URL(url);
    expect(`${parsed.origin}${parsed.pathname}`).toBe(`${baseUrl}/v1/auth/oauth/local/start`);
    expect(parsed.searchParams.get('public_token')).toBe(app.public_token);
    expect(parsed.searchParams.get('login_redirect_url')).toBe(landing);
    expect(parsed.searchParams.get('signup_redirect_url')).toBe(landing);
    expect(parsed.searchParams.get('code_challenge_method')).toBe('S256');
    expect(parsed.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Signed out: no session on the URL.
    expect(parsed.searchParams.has('session_jwt')).toBe(false);
    expect(parsed.searchParams.has('session_token')).toBe(false);

    // The verifier sent at authenticate is the one whose challenge went out.
    const back = new URL(await landingUrl(url, 'ada'));
    sentBodies.length = 0;
    await lk.oauth.handleRedirect(back);
    const body = sentBodies[0] as { code_verifier: string };
    expect(await pkceChallenge(body.code_verifier)).toBe(parsed.searchParams.get('code_challenge'));
    // And the same pair does not come twice.
    const second = new URL((await lk.oauth.startUrl('local')).url);
    expect(second.searchParams.get('code_challenge')).not.toBe(parsed.searchParams.get('code_challenge'));
    lk.close();

    // pkce: false sends none, and authenticate then sends no verifier.
    const plain = new URL((await client().oauth.startUrl('local', { pkce: false })).url);
    expect(plain.searchParams.has('code_challenge')).toBe(false);
    await expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).resolves.toBe(
      // RFC 7636, appendix B.
      'E9Melhoa2OwvFrEIcjQFrXp4AG8ykl3_FZ1ZF5Hq7GM',
    );
  });

  it('signs in through the provider, holds the session; the same identity signs the same user in again', async () => {
    const lk = client();
    const events: string[] = [];
    lk.session.onChange((c) => events.push(c.type));
    const { url } = await lk.oauth.startUrl('local', {
      loginRedirectUrl: landing,
      signupRedirectUrl: landing,
    });
    const back = await landingUrl(url, 'ada');
    expect(new URL(back).searchParams.get('token_type')).toBe('oauth');
    const first = await lk.oauth.handleRedirect(back);
    expect(first).toMatchObject({
      provider_id: 'local',
      provider_subject: 'ada',
      user_created: true,
      session_token: expect.any(String),
      session_jwt: expect.any(String),
    });
    expect(lk.session.get()).toMatchObject({ user_id: first!.user_id, session_token: first!.session_token });
    expect(events).toEqual(['signed-in']);
    // The session's factor names the provider identity.
    expect(first!.session!.factors).toEqual([
      expect.objectContaining({
        type: 'oauth',
        method: expect.objectContaining({
          provider_id: 'local',
          provider_subject: 'ada',
          email: 'ada@example.com',
        }),
      }),
    ]);

    // The token is spent: the same landing URL again is refused.
    expect(await caught(lk.oauth.handleRedirect(back))).toMatchObject({
      status: 401,
      error_type: 'oauth_token_used',
    });

    await lk.session.signOut();
    const again = client();
    const second = await again.oauth.handleRedirect(
      await landingUrl((await again.oauth.startUrl('local')).url, 'ada'),
    );
    expect(second).toMatchObject({ user_id: first!.user_id, user_created: false, link_id: first!.link_id });
    lk.close();
    again.close();
  });

  it('a token without the verifier of the tab that started is refused (another client, or a lost verifier)', async () => {
    const starter = client();
    const back = await landingUrl((await starter.oauth.startUrl('local')).url, 'bob');
    const thief = client();
    expect(await caught(thief.oauth.handleRedirect(back))).toMatchObject({
      status: 400,
      error_type: 'oauth_code_verifier_mismatch',
    });
    expect(thief.session.get()).toBeNull();
    starter.close();
    thief.close();
  });

  it('a signed-in client links the provider to its user: the session rides on the start URL', async () => {
    const lk = client();
    const ada = await lk.oauth.handleRedirect(
      await landingUrl((await lk.oauth.startUrl('local')).url, 'ada'),
    );
    const { url } = await lk.oauth.startUrl('local');
    expect(new URL(url).searchParams.get('session_jwt')).toBe(lk.session.get()!.session_jwt);
    // Bob's identity, started by Ada's session, becomes Ada's.
    const linked = await lk.oauth.handleRedirect(await landingUrl(url, 'bob'));
    expect(linked).toMatchObject({ user_id: ada!.user_id, provider_subject: 'bob' });
    // link: false leaves the session off: the identity signs in as whoever it is.
    const unlinked = new URL((await lk.oauth.startUrl('local', { link: false })).url);
    expect(unlinked.searchParams.has('session_jwt')).toBe(false);
    lk.close();
  });

  it('handleRedirect: null without a token or error, nothing spent for another kind of token, errors typed', async () => {
    const lk = client();
    expect(await lk.oauth.handleRedirect(landing)).toBeNull();
    expect(await lk.oauth.handleRedirect(`${landing}?token=abc`)).toBeNull();
    expect(await lk.oauth.handleRedirect(`${landing}?token=abc&token_type=magic_link`)).toBeNull();

    const denied = await caught(
      lk.oauth.handleRedirect(
        await landingUrl((await lk.oauth.startUrl('local')).url, 'ada', { deny: true }),
      ),
    );
    expect(denied).toMatchObject({ status: 0, error_type: 'access_denied' });
    const linked = await caught(
      lk.oauth.handleRedirect(`${landing}?error=oauth_identity_linked_elsewhere&error_description=Taken`),
    );
    expect(linked).toMatchObject({ error_type: 'oauth_identity_linked_elsewhere', message: 'Taken' });
    // A code the client does not know stays in the closed set.
    const odd = await caught(lk.oauth.handleRedirect(`${landing}?error=weird_thing`));
    expect(odd).toMatchObject({ error_type: 'oauth_provider_error' });
    expect(odd.message).toContain('weird_thing');
    lk.close();
  });
});
