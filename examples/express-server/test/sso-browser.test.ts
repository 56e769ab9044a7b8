import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type OidcProviderServer,
  startOidcProvider,
} from '../../../packages/core/test/oauth-peers/oidc-provider-server.js';
import { call } from './api.js';
import { haveChromium, launchChromium, type PageResult, warnWithoutChromium } from './chromium.js';
import { serverForFile } from './file-server.js';
import type { SpawnedServer } from './spawn-server.js';

/** Debian's Chromium; CI installs it (`.ci/run`). */
warnWithoutChromium('sso-browser.test.ts');

// The example server on its storage (PGlite, or Postgres with DATABASE_URL), allowed to use a
// provider on this machine over http.
const file = serverForFile({ LATCHKEY_OAUTH_ALLOW_INSECURE_ISSUERS: '1' });
let server: SpawnedServer;
let provider: OidcProviderServer;
let browser: Browser;
let context: BrowserContext | undefined;
let organizationId: string;

const CLIENT_SECRET = 'acme-idp-client-secret-0123456789';

describe.skipIf(!haveChromium)(
  "Single sign-on through an organization's OpenID Connect provider, in Chromium",
  () => {
    beforeAll(async () => {
      server = file.server();
      // The organization's own identity provider: panva's oidc-provider with its login and
      // consent pages, the example server's SSO callback registered as the redirect URI.
      provider = await startOidcProvider({
        clients: [
          {
            client_id: 'acme-workforce',
            client_secret: CLIENT_SECRET,
            redirect_uris: [`${server.url}/v1/auth/sso/callback`],
          },
        ],
        accounts: {
          grace: { email: 'grace@acme-corp.com', email_verified: true, name: 'Grace' },
          mallory: { email: 'mallory@elsewhere.com', email_verified: true },
        },
        pages: true,
      });
      // The App's backend: an organization whose default role is `admin`, and its connection.
      const secret = { key: server.keys.secret_key };
      const org = await call(server.url, 'POST', '/v1/organizations', {
        ...secret,
        body: { name: 'Acme Corp', slug: 'acme-corp', settings: { default_role: 'admin' } },
      });
      expect(org.status, JSON.stringify(org.body)).toBe(200);
      organizationId = org.body.organization_id as string;
      const connection = await call(
        server.url,
        'POST',
        `/v1/organizations/${organizationId}/sso_connection`,
        {
          ...secret,
          body: {
            issuer: provider.issuer,
            client_id: 'acme-workforce',
            client_secret: CLIENT_SECRET,
            email_domains: ['acme-corp.com'],
          },
        },
      );
      expect(connection.status, JSON.stringify(connection.body)).toBe(200);
      expect(JSON.stringify(connection.body)).not.toContain(CLIENT_SECRET);
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

    async function resultOf(page: Page, states: string[]): Promise<PageResult> {
      const selector = [...states, 'failed'].map((s) => `#result[data-state="${s}"]`).join(', ');
      await page.locator(selector).waitFor({ timeout: 30_000 });
      const result = page.locator('#result');
      const text = (await result.textContent()) ?? '';
      let json: PageResult['json'];
      try {
        json = JSON.parse(text);
      } catch {}
      return { state: (await result.getAttribute('data-state')) ?? '', text, json };
    }

    /**
     * A new browser follows the organization's sign-in link (by the email's domain, as a sign-in
     * page asking for the email first would), signs in on the provider's own login page as
     * `account`, grants its consent page, and lands on the example's /sso page.
     */
    async function signInThroughSso(account: string): Promise<PageResult> {
      context = await browser.newContext();
      const page = await context.newPage();
      const start = new URL('/v1/auth/sso/start', server.url);
      start.search = new URLSearchParams({
        email_domain: 'acme-corp.com',
        public_token: server.keys.public_token,
        redirect_url: `${server.url}/sso`,
      }).toString();
      await page.goto(start.toString());
      await page.waitForURL((url) => url.origin === provider.issuer);
      await page.locator('input[name="login"]').fill(account);
      await page.locator('input[name="password"]').fill('any password');
      await page.locator('button[type="submit"]').click();
      await page.locator('input[name="prompt"][value="consent"]').waitFor({ state: 'attached' });
      await page.locator('button[type="submit"]').click();
      await page.waitForURL((url) => url.origin === server.url && url.pathname === '/sso');
      const result = await resultOf(page, ['provisioned', 'signed-in']);
      // The token left the address bar.
      expect(new URL(page.url()).search).toBe('');
      return result;
    }

    it('a new user lands signed in as a member with the default role; the next sign-in is the same member', async () => {
      const first = await signInThroughSso('grace');
      expect(first.state, first.text).toBe('provisioned');
      expect(first.json).toMatchObject({
        organization_id: organizationId,
        member_id: expect.any(String),
        member_created: true,
        user_created: true,
        session_jwt: expect.any(String),
      });
      const member = await call(
        server.url,
        'GET',
        `/v1/organizations/${organizationId}/members/${first.json.member_id}`,
        { key: server.keys.secret_key },
      );
      expect(member.body).toMatchObject({ user_id: first.json.user_id, roles: ['admin'] });
      const live = await call(server.url, 'POST', '/v1/auth/sessions/authenticate', {
        key: server.keys.public_token,
        body: { session_jwt: first.json.session_jwt },
      });
      expect(live.status).toBe(200);
      expect(live.body.user_id).toBe(first.json.user_id);
      // The session it lands in is the organization's: the answer, the JWT's verified claims (the
      // member's default role), the session check, and a host route only such a session reaches.
      expect(first.json.session).toMatchObject({ organization_id: organizationId });
      expect(live.body.session).toMatchObject({ organization_id: organizationId });
      const jwks = createRemoteJWKSet(new URL(`${server.url}/v1/auth/sessions/jwks/${server.keys.app_id}`));
      const { payload } = await jwtVerify(first.json.session_jwt, jwks, {
        audience: server.keys.app_id,
        issuer: 'latchkey',
      });
      expect(payload).toMatchObject({
        sub: first.json.user_id,
        sid: first.json.session.id,
        organization_id: organizationId,
        roles: ['admin'],
        permissions: expect.any(Array),
      });
      const scoped = await call(server.url, 'GET', '/account/organization', {
        key: first.json.session_jwt,
      });
      expect(scoped.status, JSON.stringify(scoped.body)).toBe(200);
      expect(scoped.body).toEqual({
        user_id: first.json.user_id,
        organization_id: organizationId,
        roles: ['admin'],
        permissions: payload.permissions,
      });
      expect((await call(server.url, 'GET', '/account/organization')).status).toBe(401);
      await context!.close();

      const again = await signInThroughSso('grace');
      expect(again.state, again.text).toBe('signed-in');
      expect(again.json).toMatchObject({
        user_id: first.json.user_id,
        member_id: first.json.member_id,
        member_created: false,
      });
    });

    it('an email outside the organization’s domain comes back refused, and joins nothing', async () => {
      const refused = await signInThroughSso('mallory');
      expect(refused.state).toBe('failed');
      expect(refused.text).toMatch(/^sso_email_domain_not_allowed: /);
      const members = await call(server.url, 'GET', `/v1/organizations/${organizationId}/members`, {
        key: server.keys.secret_key,
      });
      expect(members.body.members).toHaveLength(1);
    });
  },
);
