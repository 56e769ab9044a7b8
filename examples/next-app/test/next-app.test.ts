import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLatchkey } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { Wallet } from 'ethers';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appDir,
  buildIsFresh,
  buildOutput,
  freePort,
  type NextServer,
  nextBuild,
  nextStart,
} from './next-server.js';

// The example app served by a real `next start`: route handlers, bundling and all.
let server: NextServer | undefined;
let dataDir: string;
let secretKey: string;
let publicToken: string;

beforeAll(async () => {
  if (!buildIsFresh()) await nextBuild();
  dataDir = await mkdtemp(path.join(tmpdir(), 'latchkey-next-app-'));
  server = await nextStart(
    await freePort(),
    { LATCHKEY_DATA_DIR: dataDir, LATCHKEY_SECRET: randomBytes(32).toString('hex') },
    '/api/v1/health',
  );
  // Written by the serving process before its first response, so it is there by now.
  const keys = JSON.parse(await readFile(path.join(dataDir, 'demo-app.json'), 'utf8'));
  expect(keys.app_id).toMatch(/^app_/);
  secretKey = keys.secret_key;
  publicToken = keys.public_token;
}, 300_000);

afterAll(async () => {
  await server?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 30_000);

const api = (p: string, init: RequestInit = {}) => fetch(`${server!.url}/api${p}`, init);
const withKey = (headers: Record<string, string> = {}) => ({
  ...headers,
  authorization: `Bearer ${secretKey}`,
});

async function expectErrorBody(res: Response, status: number, errorType: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = await res.json();
  expect(Object.keys(body).sort()).toEqual(['error_message', 'error_type', 'request_id', 'status_code']);
  expect(body).toMatchObject({ status_code: status, error_type: errorType });
  expect(body.request_id).toBe(res.headers.get('x-request-id'));
  expect(body.error_message).not.toBe('');
}

describe('examples/next-app under next start', () => {
  it('answers health without a key', async () => {
    const res = await api('/v1/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });

  it('creates a user with the demo App secret key and reads it back', async () => {
    const email = `ada-${Date.now()}@example.com`;
    const created = await api('/v1/auth/users', {
      method: 'POST',
      headers: withKey({ 'content-type': 'application/json' }),
      body: JSON.stringify({ email, name: { first_name: 'Ada', last_name: 'Lovelace' } }),
    });
    expect(created.status).toBe(200);
    const { user_id, email_id, user } = await created.json();
    expect(user_id).toMatch(/^user_/);
    expect(user.emails).toEqual([{ email_id, email, verified: false }]);

    const read = await api(`/v1/auth/users/${user_id}`, { headers: withKey() });
    expect(read.status).toBe(200);
    const again = await read.json();
    expect(again).toMatchObject({ user_id, name: { first_name: 'Ada', last_name: 'Lovelace' } });
    expect(again.emails).toEqual([{ email_id, email, verified: false }]);
  });

  it('refuses a request without a key with 401', async () => {
    await expectErrorBody(await api('/v1/auth/users/user_anything'), 401, 'unauthorized');
  });

  it('answers 404 user_not_found in the documented error shape for an unknown user id', async () => {
    const res = await api('/v1/auth/users/user_doesnotexist000000000000', { headers: withKey() });
    await expectErrorBody(res, 404, 'user_not_found');
  });

  it('lets latchkey answer unknown routes below /api', async () => {
    await expectErrorBody(await api('/v1/no-such-route', { headers: withKey() }), 404, 'route_not_found');
  });

  it('serves the page that says how to call the API', async () => {
    const res = await fetch(`${server!.url}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('/api/v1/health');
  });
});

/** A wallet sign-in through the app's /api routes, as a browser would make it. */
async function signIn() {
  const wallet = Wallet.createRandom();
  const post = (p: string, body: unknown) =>
    api(p, {
      method: 'POST',
      headers: { authorization: `Bearer ${publicToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const challenge = await (
    await post('/v1/auth/wallets/challenge', { wallet_type: 'ethereum', public_address: wallet.address })
  ).json();
  const signature = Buffer.from((await wallet.signMessage(challenge.challenge)).slice(2), 'hex').toString(
    'base64',
  );
  const verify = await post('/v1/auth/wallets/verify', {
    wallet_type: 'ethereum',
    public_address: wallet.address,
    nonce: challenge.nonce,
    signature,
    session_expires_in: 60,
  });
  expect(verify.status).toBe(200);
  const body = await verify.json();
  const cookie = verify.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return {
    ...body,
    cookie,
    revoke: () => post('/v1/auth/sessions/revoke', { session_jwt: body.session_jwt }),
  };
}

/** A JWT of another App (another Latchkey instance altogether). */
async function otherAppsJwt(): Promise<string> {
  const other = createLatchkey({ storage: memoryStorage(), secret: randomBytes(32).toString('hex') });
  const { app_id } = await other.apps.create({ name: 'Other' });
  const { user_id } = await other.users.create(app_id, { email: 'other@example.com' });
  const issued = await other.sessions.issue(
    app_id,
    user_id,
    {
      type: 'otp',
      delivery_channel: 'email',
      method: {
        method_id: 'email_1',
        method_type: 'email',
        email_id: 'email_1',
        email: 'other@example.com',
        last_verified_at: 0,
      },
    },
    { session_expires_in: 60 },
  );
  return issued.session_jwt as string;
}

const bearerOf = (credential: string) => ({ authorization: `Bearer ${credential}` });
const accountPage = (headers: Record<string, string> = {}) =>
  fetch(`${server!.url}/account`, { headers, redirect: 'manual' });

describe('host routes behind the session helpers', () => {
  it('GET /api/me (withSession, token mode): 401 without, 200 with a JWT, 401 once revoked or from another App', async () => {
    await expectErrorBody(await api('/me'), 401, 'session_required');
    const s = await signIn();
    const ok = await api('/me', { headers: bearerOf(s.session_jwt) });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ user_id: s.user_id, session_id: s.session.id });
    expect((await (await api('/me', { headers: { cookie: s.cookie } })).json()).user_id).toBe(s.user_id);

    await expectErrorBody(
      await api('/me', { headers: bearerOf(await otherAppsJwt()) }),
      401,
      'invalid_session_jwt',
    );
    expect((await s.revoke()).status).toBe(200);
    await expectErrorBody(await api('/me', { headers: bearerOf(s.session_jwt) }), 401, 'session_not_found');
  });

  it('proxy.ts: redirects without a session, passes a JWT (bearer or cookie) to the page', async () => {
    const none = await accountPage();
    expect(none.status).toBe(307);
    const location = new URL(none.headers.get('location')!, server!.url);
    expect(location.pathname).toBe('/');
    expect(location.searchParams.get('signin')).toBe('required');

    const s = await signIn();
    for (const headers of [bearerOf(s.session_jwt), { cookie: s.cookie }]) {
      const ok = await accountPage(headers);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain(`<code id="user-id">${s.user_id}</code>`);
    }
    expect((await accountPage(bearerOf(await otherAppsJwt()))).status).toBe(307);
    expect((await accountPage(bearerOf(s.session_token))).status).toBe(307); // verifyEdgeSession checks JWTs only
    expect((await accountPage(bearerOf(`${s.session_jwt.slice(0, -4)}AAAA`))).status).toBe(307);
  });

  it("proxy.ts with the revocation feed: a revoked session is redirected within the feed's bound", async () => {
    const s = await signIn();
    const kept = await signIn();
    expect((await accountPage(bearerOf(s.session_jwt))).status).toBe(200);
    expect((await s.revoke()).status).toBe(200);
    // Refused once the proxy next reads the feed: within refreshSeconds (5) plus the feed's 5 s of
    // caching (docs/host-sessions.md), while its JWT is still valid for a minute.
    await expect
      .poll(async () => (await accountPage({ cookie: s.cookie })).status, { timeout: 15_000, interval: 250 })
      .toBe(307);
    expect((await accountPage(bearerOf(s.session_jwt))).status).toBe(307);
    expect((await accountPage(bearerOf(kept.session_jwt))).status).toBe(200);
  }, 30_000);

  it("proxy.ts was built for the Node.js runtime as a proxy, one file without Latchkey's server code", async () => {
    const next = (file: string) => readFile(path.join(appDir, '.next', file), 'utf8');
    // No middleware.ts deprecation notice, and Next lists the proxy among the built routes.
    const log = await buildOutput();
    expect(log).not.toContain('convention is deprecated');
    expect(log).not.toContain('middleware-to-proxy');
    expect(log).toContain('Proxy (Middleware)');
    // Next 16 records a Node.js proxy in functions-config-manifest.json; the edge's
    // middleware-manifest.json stays empty.
    const functions = JSON.parse(await next('server/functions-config-manifest.json')).functions;
    expect(functions['/_middleware']).toMatchObject({
      runtime: 'nodejs',
      matchers: [{ originalSource: '/account/:path*' }],
    });
    expect(JSON.parse(await next('server/middleware-manifest.json')).middleware).toEqual({});
    // The bundle is still named middleware.js and loads none of the chunks the routes share.
    const traced: string[] = JSON.parse(await next('server/middleware.js.nft.json')).files;
    expect(traced).toContain('webpack-runtime.js');
    expect(traced.filter((file) => file.includes('chunks/'))).toEqual([]);
    const bundle = await next('server/middleware.js');
    expect(bundle).toContain('JSON Web Key Set'); // jose's remote key set
    expect(bundle).toContain('the revocation feed answered'); // @latchkey/next/edge's feed reader
    // Texts of Latchkey's server code (the error catalogue, the session resolver) are not in it.
    for (const serverCode of ['No live session matches', 'pass app_id to the session helpers'])
      expect(bundle).not.toContain(serverCode);
  });
});

const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM))
  console.warn(
    `next-app.test.ts: the browser test is SKIPPED, ${CHROMIUM} is absent (apt-get install -y chromium).`,
  );

/** The newest email passcode the app's outbox sender wrote for `to`. */
async function codeSentTo(to: string): Promise<string | undefined> {
  const lines = (await readFile(path.join(dataDir, 'outbox.jsonl'), 'utf8').catch(() => '')).split('\n');
  const sent = lines.filter(Boolean).map((line) => JSON.parse(line) as { to: string; code?: string });
  return sent.filter((m) => m.to === to).at(-1)?.code;
}

describe.skipIf(!existsSync(CHROMIUM))('the home page in Chromium (@latchkey/react)', () => {
  it('shows the session, signs in by email passcode into the cookies, keeps it across loads, and signs out', async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      const status = page.locator('#session-status');
      await page.goto(`${server!.url}/`);
      // useSession: loading on the server's render, signed-out once the provider has asked.
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('signed-out');

      const email = `grace-${Date.now()}@example.com`;
      await page.fill('#email', email);
      await page.click('#send-code');
      await page.waitForSelector('#code');
      const code = await codeSentTo(email);
      expect(code).toMatch(/^\d{6}$/);
      // A wrong code first: useOtpSignIn shows the server's refusal and stays signed out.
      await page.fill('#code', code === '000000' ? '111111' : '000000');
      await page.click('#verify-code');
      await page.waitForSelector('#sign-in-error');
      expect(await status.textContent()).toBe('signed-out');
      await page.fill('#code', code!);
      await page.click('#verify-code');
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('signed-in');
      const userId = await page.locator('#session-user').textContent();
      expect(userId).toMatch(/^user_/);

      // Two places hold it: the client's localStorage (for its calls) and HttpOnly cookies the
      // route handlers set, which page scripts cannot read and the server-side helpers do.
      const cookies = await page.context().cookies();
      expect(cookies.filter((c) => c.httpOnly).map((c) => c.name)).toEqual(
        expect.arrayContaining(['latchkey_session', 'latchkey_session_jwt']),
      );
      expect(await page.evaluate(() => document.cookie)).toBe('');
      expect(await page.evaluate(() => JSON.stringify(localStorage))).toContain(userId!);
      // A reload is signed in again: the held session, confirmed with the server.
      await page.reload();
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('signed-in');
      expect(await page.locator('#session-user').textContent()).toBe(userId);
      // The proxy and the server component read the same cookies.
      await page.click('a[href="/account"]');
      await page.waitForURL(`${server!.url}/account`);
      expect(await page.locator('#user-id').textContent()).toBe(userId);
      await page.goBack();

      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('signed-in');
      await page.click('#sign-out');
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('signed-out');
      expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain(userId!);
      // Revoked and cleared: the account page sends the browser home again, and a reload stays out.
      await page.goto(`${server!.url}/account`);
      expect(new URL(page.url()).searchParams.get('signin')).toBe('required');
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('signed-out');
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('organization switcher: trades the session for one scoped to the chosen organization; /api/invoices follows its roles', async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      const status = page.locator('#session-status');
      await page.goto(`${server!.url}/`);
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('signed-out');
      const email = `ada-orgs-${Date.now()}@example.com`;
      await page.fill('#email', email);
      await page.click('#send-code');
      await page.waitForSelector('#code');
      await page.fill('#code', (await codeSentTo(email))!);
      await page.click('#verify-code');
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('signed-in');
      const userId = (await page.locator('#session-user').textContent())!;

      // Three organizations made with the secret key: owner of one, a plain member of one, and
      // holding the demo App's own `billing` role (invoices:read) in the third.
      const post = async (p: string, body: unknown) => {
        const res = await api(p, {
          method: 'POST',
          headers: withKey({ 'content-type': 'application/json' }),
          body: JSON.stringify(body),
        });
        expect(res.status).toBe(200);
        return res.json();
      };
      const stamp = Date.now();
      const owned = await post('/v1/organizations', {
        name: 'Owned',
        slug: `owned-${stamp}`,
        owner_user_id: userId,
      });
      const plain = await post('/v1/organizations', { name: 'Plain', slug: `plain-${stamp}` });
      const billing = await post('/v1/organizations', { name: 'Billing', slug: `billing-${stamp}` });
      await post(`/v1/organizations/${plain.organization_id}/members`, {
        user_id: userId,
        roles: ['member'],
      });
      const billingMember = await post(`/v1/organizations/${billing.organization_id}/members`, {
        user_id: userId,
        roles: ['billing'],
      });

      const invoices = () =>
        page.evaluate(async () => {
          const res = await fetch('/api/invoices');
          return { status: res.status, body: await res.json() };
        });
      const current = page.locator('#current-organization');
      const switchTo = async (organizationId: string) => {
        await page.click(`#switch-${organizationId}`);
        await expect.poll(() => current.textContent(), { timeout: 20_000 }).toBe(organizationId);
      };

      await page.click('a[href="/organizations"]');
      await page.waitForURL(`${server!.url}/organizations`);
      expect(await current.textContent()).toBe('none');
      expect(await page.locator('li').count()).toBe(3);
      // No organization in the session: refused before any role is looked at.
      expect(await invoices()).toMatchObject({ status: 403, body: { error_type: 'permission_denied' } });

      await switchTo(owned.organization_id);
      expect(await page.locator('#current-roles').textContent()).toBe('owner');
      expect(await invoices()).toMatchObject({
        status: 200,
        body: { organization_id: owned.organization_id, roles: ['owner'] },
      });

      await switchTo(plain.organization_id);
      expect(await page.locator('#current-roles').textContent()).toBe('member');
      expect(await invoices()).toMatchObject({ status: 403, body: { error_type: 'permission_denied' } });

      await switchTo(billing.organization_id);
      expect(await invoices()).toMatchObject({ status: 200, body: { roles: ['billing'] } });
      // The browser holds the traded session, and a reload keeps the organization.
      await page.reload();
      await expect.poll(() => current.textContent(), { timeout: 20_000 }).toBe(billing.organization_id);

      // Removed from the organization: its session ends, in this process at once even in jwt mode.
      const removed = await api(
        `/v1/organizations/${billing.organization_id}/members/${billingMember.member_id}`,
        {
          method: 'DELETE',
          headers: withKey(),
        },
      );
      expect(removed.status).toBe(200);
      expect((await invoices()).status).toBe(401);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 180_000);
});
