import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLatchkey, type Factor, type Latchkey } from '@latchkey/core';
import { latchkeyRouter, requireSession } from '@latchkey/express';
import { memoryStorage } from '@latchkey/memory';
import express from 'express';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium, warnWithoutChromium } from './chromium.js';

/**
 * The session cookies' names and flags in a real browser: bare names without Secure on
 * http://localhost (every browser stores them), `__Host-` names with Secure on an https host,
 * and a sibling subdomain's tossed cookies neither replacing nor signing in as the attacker.
 */
warnWithoutChromium('session-cookies-browser.test.ts');

const factor: Factor = {
  type: 'otp',
  delivery_channel: 'email',
  method: {
    method_id: 'email_b',
    method_type: 'email',
    email_id: 'email_b',
    email: 'b@example.com',
    last_verified_at: 0,
  },
};

let latchkey: Latchkey;
let app: { app_id: string; public_token: string };
let browser: Browser;
let certDir: string;
const servers: Server[] = [];

async function issue(email: string) {
  const { user_id } = await latchkey.users.create(app.app_id, { email });
  const s = await latchkey.sessions.issue(app.app_id, user_id, factor, { session_expires_in: 60 });
  return { userId: user_id, token: s.session_token as string, jwt: s.session_jwt as string };
}

/** The host app: Latchkey's router with cookies, its own routes behind requireSession. */
function hostApp() {
  const h = express();
  h.use('/auth', latchkeyRouter(latchkey, { cookies: true }));
  h.use('/secure-auth', latchkeyRouter(latchkey, { cookies: { secure: true } }));
  const who = (req: express.Request, res: express.Response) => {
    res.json({ user_id: req.auth?.user_id });
  };
  h.get('/me', requireSession(latchkey, { cookies: true }), who);
  h.post('/transfer', requireSession(latchkey, { cookies: true }), who);
  h.get('/secure-me', requireSession(latchkey, { cookies: { secure: true } }), who);
  h.get('/', (_req, res) => {
    res.type('html').send('<!doctype html><title>host</title>');
  });
  return h;
}

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe.skipIf(!haveChromium)('session cookies in Chromium', () => {
  let httpPort: number;
  let httpsPort: number;

  beforeAll(async () => {
    latchkey = createLatchkey({ storage: memoryStorage(), secret: 'browser-cookie-test-secret-0123456789' });
    app = await latchkey.apps.create({ name: 'Browser host' });
    certDir = mkdtempSync(path.join(tmpdir(), 'latchkey-cert-'));
    execFileSync('openssl', [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', path.join(certDir, 'key.pem'), '-out', path.join(certDir, 'cert.pem'), '-days', '1'],
      ...['-subj', '/CN=shop.test', '-addext', 'subjectAltName=DNS:shop.test,DNS:*.shop.test'],
    ]);
    const h = hostApp();
    // evil.shop.test: a sibling subdomain that sets cookies for the whole of shop.test.
    const site = express();
    site.get('/toss', (req, res) => {
      const value = String(req.query.value);
      for (const name of [
        'latchkey_session_jwt',
        '__Host-latchkey_session_jwt',
        '__Secure-latchkey_session_jwt',
      ])
        res.append('Set-Cookie', `${name}=${value}; Domain=shop.test; Path=/; Secure; SameSite=Lax`);
      res.append(
        'Set-Cookie',
        `latchkey_session=${String(req.query.token)}; Domain=shop.test; Path=/; Secure`,
      );
      res.type('html').send('<!doctype html><title>tossed</title>');
    });
    site.use((req, res, next) => (req.hostname === 'evil.shop.test' ? res.sendStatus(404) : next()));
    site.use(h);
    httpPort = await listen(createHttpServer(h));
    httpsPort = await listen(
      createHttpsServer(
        {
          key: readFileSync(path.join(certDir, 'key.pem')),
          cert: readFileSync(path.join(certDir, 'cert.pem')),
        },
        site,
      ),
    );
    browser = await launchChromium([
      '--host-resolver-rules=MAP *.shop.test 127.0.0.1, MAP shop.test 127.0.0.1',
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    for (const server of servers) server.close();
    if (certDir) rmSync(certDir, { recursive: true, force: true });
  });

  /** Signs in from the page through the router (`sessions/authenticate` sets the cookies). */
  const signInFromPage = (page: import('playwright-core').Page, mount: string, token: string) =>
    page.evaluate(
      async ({ mount, token, publicToken }) => {
        const res = await fetch(`${mount}/v1/auth/sessions/authenticate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${publicToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ session_token: token }),
        });
        return res.status;
      },
      { mount, token, publicToken: app.public_token },
    );
  const getJson = (page: import('playwright-core').Page, url: string, method = 'GET') =>
    page.evaluate(
      async ({ url, method }) => {
        const res = await fetch(url, { method });
        return { status: res.status, body: await res.json() };
      },
      { url, method },
    );

  it('http://localhost: bare names without Secure are stored, sent and accepted (and __Host- with secure: true)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const origin = `http://localhost:${httpPort}`;
    await page.goto(`${origin}/`);
    const s = await issue('local@example.com');
    expect(await signInFromPage(page, '/auth', s.token)).toBe(200);
    const stored = await context.cookies(origin);
    expect(stored.map((c) => [c.name, c.secure, c.httpOnly]).sort()).toEqual([
      ['latchkey_session', false, true],
      ['latchkey_session_jwt', false, true],
    ]);
    expect(await getJson(page, '/me')).toEqual({ status: 200, body: { user_id: s.userId } });
    expect(await getJson(page, '/transfer', 'POST')).toEqual({ status: 200, body: { user_id: s.userId } });

    // Chromium also takes __Host- cookies (Secure) from http://localhost, a secure context.
    expect(await signInFromPage(page, '/secure-auth', s.token)).toBe(200);
    const prefixed = (await context.cookies(origin)).filter((c) => c.name.startsWith('__Host-'));
    expect(prefixed.map((c) => [c.name, c.secure]).sort()).toEqual([
      ['__Host-latchkey_session', true],
      ['__Host-latchkey_session_jwt', true],
    ]);
    expect(await getJson(page, '/secure-me')).toEqual({ status: 200, body: { user_id: s.userId } });
    await context.close();
  });

  it('https on a real host name: __Host- names with Secure; a sibling subdomain’s tossed cookies sign no one in', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const origin = `https://app.shop.test:${httpsPort}`;
    const attacker = await issue('attacker@example.com');
    const victim = await issue('victim@example.com');

    // The attacker's sibling subdomain sets its own session cookies for all of shop.test.
    await page.goto(`https://evil.shop.test:${httpsPort}/toss?value=${attacker.jwt}&token=${attacker.token}`);
    const tossed = await context.cookies(origin);
    // Chromium refuses a __Host- cookie with a Domain: only the bare and __Secure- names arrive.
    expect(tossed.map((c) => c.name).sort()).toEqual([
      '__Secure-latchkey_session_jwt',
      'latchkey_session',
      'latchkey_session_jwt',
    ]);

    await page.goto(`${origin}/`);
    // Signed out, the tossed cookies do not sign the victim in as the attacker.
    const before = await getJson(page, '/me');
    expect(before.status).toBe(401);
    expect(before.body.error_type).toBe('session_required');

    expect(await signInFromPage(page, '/auth', victim.token)).toBe(200);
    const own = (await context.cookies(origin)).filter((c) => c.name.startsWith('__Host-'));
    expect(own.map((c) => [c.name, c.secure, c.httpOnly, c.sameSite, c.domain]).sort()).toEqual([
      ['__Host-latchkey_session', true, true, 'Lax', 'app.shop.test'],
      ['__Host-latchkey_session_jwt', true, true, 'Lax', 'app.shop.test'],
    ]);
    expect(await getJson(page, '/me')).toEqual({ status: 200, body: { user_id: victim.userId } });
    expect(await getJson(page, '/transfer', 'POST')).toEqual({
      status: 200,
      body: { user_id: victim.userId },
    });
    await context.close();
  });
});
