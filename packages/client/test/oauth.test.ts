import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OidcProviderServer,
  startOidcProvider,
} from '../../core/test/oauth-peers/oidc-provider-server.js';
import { createLatchkeyClient } from '../src/index.js';
import { pkceChallenge } from '../src/pkce.js';
import { baseUrl, caught, inProcessLatchkey, providerTrip } from './in-process.js';

// The client in Node against a real Latchkey, in process, and panva's oidc-provider on a local
// port: the browser's part (the redirects) is played by fetch, the provider's pages by its harness.
const landing = 'https://app.example.com/oauth';
const { latchkey, app, sentBodies, inProcess, client } = await inProcessLatchkey('OAuth client', {
  secret: 'o'.repeat(40),
  oauth: { callbackUrl: `${baseUrl}/v1/auth/oauth/callback`, allowInsecureIssuers: true },
});
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
  });
  await latchkey.apps.patchSettings(app.app_id, {
    redirect_urls: { login: [landing], signup: [landing], default_login: landing, default_signup: landing },
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
  });
});
afterAll(async () => {
  await provider?.close();
  await latchkey.close();
});

/** A new account at the provider for one test, and the browser's trip through it. */
const { account, landingUrl } = providerTrip(latchkey, () => provider, 'example.com');

/** Runs `fn` with a browser tab's sessionStorage (a Map it can inspect), then takes it away. */
async function inATab(fn: (tab: Map<string, string>) => Promise<void>) {
  const tab = new Map<string, string>();
  globalThis.sessionStorage = {
    getItem: (k: string) => tab.get(k) ?? null,
    setItem: (k: string, v: string) => void tab.set(k, v),
    removeItem: (k: string) => void tab.delete(k),
  } as Storage;
  try {
    await fn(tab);
  } finally {
    Reflect.deleteProperty(globalThis, 'sessionStorage');
  }
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
    const back = new URL(await landingUrl(url, account('pkce')));
    sentBodies.length = 0;
    await lk.oauth.handleRedirect(back);
    const body = sentBodies[0] as { code_verifier: string };
    expect(await pkceChallenge(body.code_verifier)).toBe(parsed.searchParams.get('code_challenge'));
    // And the same pair does not come twice.
    const second = new URL((await lk.oauth.startUrl('local')).url);
    expect(second.searchParams.get('code_challenge')).not.toBe(parsed.searchParams.get('code_challenge'));
    await lk.session.signOut();

    // pkce: false sends none, and authenticate then sends no verifier (not the one of the start
    // above, left unused).
    const plain = (await lk.oauth.startUrl('local', { pkce: false })).url;
    expect(new URL(plain).searchParams.has('code_challenge')).toBe(false);
    const plainBack = await landingUrl(plain, account('plain'));
    sentBodies.length = 0;
    expect(await lk.oauth.handleRedirect(plainBack)).toMatchObject({ user_created: true });
    expect(sentBodies[0]).not.toHaveProperty('code_verifier');
    lk.close();
    await expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).resolves.toBe(
      // RFC 7636, appendix B.
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('signs in through the provider, holds the session; the same identity signs the same user in again', async () => {
    const ada = account('ada');
    const lk = client();
    const events: string[] = [];
    lk.session.onChange((c) => events.push(c.type));
    const { url } = await lk.oauth.startUrl('local', {
      loginRedirectUrl: landing,
      signupRedirectUrl: landing,
    });
    const back = await landingUrl(url, ada);
    expect(new URL(back).searchParams.get('token_type')).toBe('oauth');
    const first = await lk.oauth.handleRedirect(back);
    expect(first).toMatchObject({
      provider_id: 'local',
      provider_subject: ada,
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
          provider_subject: ada,
          email: `${ada}@example.com`,
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
      await landingUrl((await again.oauth.startUrl('local')).url, ada),
    );
    expect(second).toMatchObject({ user_id: first!.user_id, user_created: false, link_id: first!.link_id });
    lk.close();
    again.close();
  });

  it('a token without the verifier of the tab that started is refused (another client, or a lost verifier)', async () => {
    const starter = client();
    const back = await landingUrl((await starter.oauth.startUrl('local')).url, account('stolen'));
    const thief = client();
    expect(await caught(thief.oauth.handleRedirect(back))).toMatchObject({
      status: 400,
      error_type: 'oauth_code_verifier_mismatch',
    });
    expect(thief.session.get()).toBeNull();
    starter.close();
    thief.close();
  });

  it("in a browser tab: the landing page's client finds the verifier in sessionStorage under the storage key, and it is gone after use", async () => {
    await inATab(async (tab) => {
      const signInPage = createLatchkeyClient({
        publicToken: app.public_token,
        baseUrl,
        fetch: inProcess,
        storageKey: 'demo',
      });
      const back = await landingUrl((await signInPage.oauth.startUrl('local')).url, account('tab'));
      expect([...tab.keys()]).toEqual(['demo:oauth_code_verifier']);
      signInPage.close();
      // Another client on another storage key is another sign-in's: it finds nothing.
      const other = createLatchkeyClient({
        publicToken: app.public_token,
        baseUrl,
        fetch: inProcess,
        storageKey: 'other',
      });
      expect(await caught(other.oauth.authenticate('not-a-token'))).toMatchObject({ status: 404 });
      expect(sentBodies.at(-1)).not.toHaveProperty('code_verifier');
      other.close();
      const landingPage = createLatchkeyClient({
        publicToken: app.public_token,
        baseUrl,
        fetch: inProcess,
        storageKey: 'demo',
      });
      expect(await landingPage.oauth.handleRedirect(back)).toMatchObject({ user_created: true });
      expect(tab.size).toBe(0);
      landingPage.close();
    });
  });

  it("a redirect carrying an error ends that sign-in: the tab's verifier is forgotten", async () => {
    await inATab(async (tab) => {
      const lk = client();
      await lk.oauth.startUrl('local');
      expect(tab.size).toBe(1);
      expect(await caught(lk.oauth.handleRedirect(`${landing}?error=access_denied`))).toMatchObject({
        error_type: 'access_denied',
      });
      expect(tab.size).toBe(0);
      lk.close();
    });
  });

  it('a signed-in client links the provider to its user: the session rides on the start URL', async () => {
    const lk = client();
    const ada = await lk.oauth.handleRedirect(
      await landingUrl((await lk.oauth.startUrl('local')).url, account('ada')),
    );
    const { url } = await lk.oauth.startUrl('local');
    expect(new URL(url).searchParams.get('session_jwt')).toBe(lk.session.get()!.session_jwt);
    // Bob's identity, started by Ada's session, becomes Ada's.
    const bob = account('bob');
    const linked = await lk.oauth.handleRedirect(await landingUrl(url, bob));
    expect(linked).toMatchObject({ user_id: ada!.user_id, provider_subject: bob, user_created: false });
    // link: false leaves the session off the start: the identity signs in as whoever it is (Ada's
    // session, sent at authenticate as by every sign-in, is not another user's to extend), and the
    // client holds that user's session instead.
    const unlinked = (await lk.oauth.startUrl('local', { link: false })).url;
    expect(new URL(unlinked).searchParams.has('session_jwt')).toBe(false);
    expect(new URL(unlinked).searchParams.has('session_token')).toBe(false);
    const carol = await lk.oauth.handleRedirect(await landingUrl(unlinked, account('carol')));
    expect(carol).toMatchObject({ user_created: true });
    expect(carol!.user_id).not.toBe(ada!.user_id);
    expect(carol!.session!.factors).toHaveLength(1);
    expect(lk.session.get()?.user_id).toBe(carol!.user_id);
    lk.close();
  });

  it('handleRedirect: null without a token or error, nothing spent for another kind of token, errors typed', async () => {
    const lk = client();
    expect(await lk.oauth.handleRedirect(landing)).toBeNull();
    expect(await lk.oauth.handleRedirect(`${landing}?token=abc`)).toBeNull();
    expect(await lk.oauth.handleRedirect(`${landing}?token=abc&token_type=magic_link`)).toBeNull();

    const denied = await caught(
      lk.oauth.handleRedirect(
        await landingUrl((await lk.oauth.startUrl('local')).url, account('denied'), { deny: true }),
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
