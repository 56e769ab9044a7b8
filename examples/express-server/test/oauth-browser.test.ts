import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type OidcProviderServer,
  startOidcProvider,
} from '../../../packages/core/test/oauth-peers/oidc-provider-server.js';
import { configFromEnv } from '../src/config.js';
import { call } from './api.js';
import { haveChromium, launchChromium, type PageResult, warnWithoutChromium } from './chromium.js';
import { serverForFile } from './file-server.js';
import { type SpawnedServer, spawnServer } from './spawn-server.js';

/** Debian's Chromium; CI installs it (`.ci/run`). */
warnWithoutChromium('oauth-browser.test.ts');

describe('LATCHKEY_OAUTH_ALLOW_INSECURE_ISSUERS', () => {
  it('is off unless it is 1, and stops the server when it is neither 1 nor 0', () => {
    expect(configFromEnv({}).oauthAllowInsecureIssuers).toBe(false);
    expect(configFromEnv({ LATCHKEY_OAUTH_ALLOW_INSECURE_ISSUERS: '0' }).oauthAllowInsecureIssuers).toBe(
      false,
    );
    expect(configFromEnv({ LATCHKEY_OAUTH_ALLOW_INSECURE_ISSUERS: '1' }).oauthAllowInsecureIssuers).toBe(
      true,
    );
    for (const value of ['true', 'yes', ' 1'])
      expect(() => configFromEnv({ LATCHKEY_OAUTH_ALLOW_INSECURE_ISSUERS: value })).toThrow(
        /LATCHKEY_OAUTH_ALLOW_INSECURE_ISSUERS must be 1 or 0/,
      );
  });
});

// The example server on its storage (PGlite, or Postgres with DATABASE_URL), allowed to use a
// provider on this machine over http.
const SERVER_ENV = { LATCHKEY_OAUTH_ALLOW_INSECURE_ISSUERS: '1' };
const file = serverForFile(SERVER_ENV);
let server: SpawnedServer;
let provider: OidcProviderServer;
let browser: Browser;
let context: BrowserContext | undefined;

const CLIENT_SECRET = 'example-oauth-client-secret-0123456789';

describe.skipIf(!haveChromium)(
  'Sign in with an OpenID Connect provider on the example pages, in Chromium',
  () => {
    beforeAll(async () => {
      server = file.server();
      // panva's oidc-provider with its own login and consent pages (devInteractions), the example
      // server's callback registered as the client's redirect URI.
      provider = await startOidcProvider({
        clients: [
          {
            client_id: 'latchkey-example',
            client_secret: CLIENT_SECRET,
            redirect_uris: [`${server.url}/v1/auth/oauth/callback`],
          },
        ],
        accounts: { ada: { email: 'ada.oauth@example.com', email_verified: true, name: 'Ada' } },
        pages: true,
      });
      // The demo App's provider, set as an operator would: a settings patch with the secret key.
      const patched = await fetch(`${server.url}/v1/app/settings`, {
        method: 'PATCH',
        headers: {
          authorization: `Bearer ${server.keys.secret_key}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          oauth: {
            providers: {
              local: {
                type: 'oidc',
                issuer: provider.issuer,
                client_id: 'latchkey-example',
                client_secret: CLIENT_SECRET,
              },
            },
          },
        }),
      });
      expect(patched.status, await patched.clone().text()).toBe(200);
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await provider?.close();
    });
    afterEach(async () => {
      await context?.close();
      context = undefined;
    });

    /** What the page's `#result` shows once it settles on one of `states`. */
    async function resultOf(page: Page, states: string[]): Promise<PageResult> {
      const selector = states.map((s) => `#result[data-state="${s}"]`).join(', ');
      await page.locator(`${selector}, #result[data-state="failed"]`).waitFor({ timeout: 30_000 });
      const result = page.locator('#result');
      const text = (await result.textContent()) ?? '';
      let json: PageResult['json'];
      try {
        json = JSON.parse(text);
      } catch {}
      return { state: (await result.getAttribute('data-state')) ?? '', text, json };
    }

    /**
     * A new browser opens the sign-in page, clicks "Sign in with local", signs in on oidc-provider's
     * login page as `account`, grants its consent page, and lands on the example's /oauth page.
     */
    async function signInWithProvider(account: string): Promise<{ page: Page; result: PageResult }> {
      context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${server.url}/`);
      const button = page.locator('#oauth-local');
      await button.waitFor();
      expect(await button.textContent()).toBe('Sign in with local');
      await button.click();

      // oidc-provider's own login form, on its origin.
      await page.waitForURL((url) => url.origin === provider.issuer);
      await page.locator('input[name="login"]').fill(account);
      await page.locator('input[name="password"]').fill('any password');
      await page.locator('button[type="submit"]').click();
      // Its consent page: "Continue".
      await page.locator('input[name="prompt"][value="consent"]').waitFor({ state: 'attached' });
      await page.locator('button[type="submit"]').click();

      await page.waitForURL((url) => url.origin === server.url && url.pathname === '/oauth');
      const result = await resultOf(page, ['registered', 'signed-in']);
      return { page, result };
    }

    const user = async (userId: string) =>
      (await call(server.url, 'GET', `/v1/auth/users/${userId}`, { key: server.keys.secret_key })).body as {
        user_id: string;
        emails: Array<{ email: string; verified: boolean }>;
        oauth_links: Array<{ provider_id: string; issuer: string; subject: string; email: string | null }>;
      };

    it('signs in through the provider’s own pages, then again as the same user, with no duplicate', async () => {
      const { page, result } = await signInWithProvider('ada');
      expect(result.state, result.text).toBe('registered');
      expect(result.json).toMatchObject({
        provider_id: 'local',
        provider_subject: 'ada',
        user_created: true,
        session_token: expect.any(String),
        session_jwt: expect.any(String),
      });
      const userId = result.json.user_id as string;
      // The page shows the signed-in user, and took the token out of the address bar.
      expect(await page.textContent('#session-line')).toBe(`Signed in as ${userId}.`);
      expect(new URL(page.url()).search).toBe('');
      expect(await page.evaluate(() => (window as any).lk.session.get()?.user_id)).toBe(userId);
      // The session is live, and the user is the provider's identity.
      const live = await call(server.url, 'POST', '/v1/auth/sessions/authenticate', {
        key: server.keys.public_token,
        body: { session_jwt: result.json.session_jwt },
      });
      expect(live.status).toBe(200);
      expect(live.body.user_id).toBe(userId);
      const created = await user(userId);
      expect(created.oauth_links).toEqual([
        expect.objectContaining({ provider_id: 'local', issuer: provider.issuer, subject: 'ada' }),
      ]);
      expect(created.emails).toEqual([
        expect.objectContaining({ email: 'ada.oauth@example.com', verified: true }),
      ]);
      await context!.close();

      // A restart (same port, so the same callback URL) applies the demo settings again: the
      // provider and its sealed secret stay.
      const env = { ...file.target().env, ...SERVER_ENV, PORT: new URL(server.url).port };
      expect((await server.stop()).code).toBe(0);
      server = await spawnServer(server.dataDir, env);

      // Another browser, the same identity: the same user, one link.
      const again = await signInWithProvider('ada');
      expect(again.result.state, again.result.text).toBe('signed-in');
      expect(again.result.json).toMatchObject({
        user_id: userId,
        user_created: false,
        link_id: result.json.link_id,
      });
      expect((await user(userId)).oauth_links).toHaveLength(1);
    });

    it('the sign-in page lists the provider without its secrets', async () => {
      const listed = await fetch(`${server.url}/demo/oauth-providers`);
      const text = await listed.text();
      expect(JSON.parse(text)).toEqual({ providers: [{ id: 'local', type: 'oidc', label: 'local' }] });
      expect(text).not.toContain(CLIENT_SECRET);
      expect(text).not.toContain('latchkey-example');
    });
  },
);
