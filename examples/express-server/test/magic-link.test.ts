import { existsSync } from 'node:fs';
import path from 'node:path';
import { readOutbox } from '@latchkey/senders';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, uniqueEmail } from './api.js';
import { serverForFile } from './file-server.js';
import type { SpawnedServer } from './spawn-server.js';

const file = serverForFile();
let server: SpawnedServer;
beforeAll(() => {
  server = file.server();
});

/** The link in the newest magic-link email to `to`, from the outbox. */
async function linkSentTo(to: string): Promise<URL> {
  const entry = (await readOutbox(path.join(server.dataDir, 'outbox.jsonl')))
    .filter((e) => e.to === to && e.kind === 'magic_link')
    .at(-1);
  expect(entry, `no magic link to ${to}`).toBeDefined();
  expect(entry!.text).toContain(entry!.url);
  return new URL(entry!.url!);
}

const loginOrCreate = (email: string) =>
  call(server.url, 'POST', '/v1/auth/magic_links/email/login_or_create', {
    key: server.keys.public_token,
    body: { email },
  });

const authenticate = (token: string, extra: Record<string, unknown> = {}) =>
  call(server.url, 'POST', '/v1/auth/magic_links/authenticate', {
    key: server.keys.public_token,
    body: { token, ...extra },
  });

describe('magic links on the example server', () => {
  it('registers a new email through a registration link, then logs it in through a login link', async () => {
    const email = uniqueEmail('magic');
    const first = await loginOrCreate(email);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ user_created: true });
    const signup = await linkSentTo(email);
    // The demo App's own page on this server is both the signup and the login default.
    expect(`${signup.origin}${signup.pathname}`).toBe(`${server.url}/magic-link`);
    const token = signup.searchParams.get('token')!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // Following the link (a GET, as a mail scanner would) spends nothing.
    const page = await fetch(signup);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/assets/latchkey-client.js');

    const registered = await authenticate(token, { session_expires_in: 60 });
    expect(registered.status).toBe(200);
    expect(registered.body).toMatchObject({
      user_id: first.body.user_id,
      email_id: first.body.email_id,
      link_type: 'signup',
      session_token: expect.any(String),
      session_jwt: expect.any(String),
    });
    const user = await call(server.url, 'GET', `/v1/auth/users/${first.body.user_id}`, {
      key: server.keys.secret_key,
    });
    expect(user.body).toMatchObject({ status: 'active', emails: [{ email, verified: true }] });
    expectError(await authenticate(token), 401, 'magic_link_used');

    const again = await loginOrCreate(email);
    expect(again.body).toMatchObject({ user_id: first.body.user_id, user_created: false });
    const login = await linkSentTo(email);
    expect(`${login.origin}${login.pathname}`).toBe(`${server.url}/magic-link`);
    const loggedIn = await authenticate(login.searchParams.get('token')!);
    expect(loggedIn.body).toMatchObject({ user_id: first.body.user_id, link_type: 'login' });
  });

  it('refuses a redirect URL off the demo App’s allow-list', async () => {
    const res = await call(server.url, 'POST', '/v1/auth/magic_links/email/login_or_create', {
      key: server.keys.public_token,
      body: { email: uniqueEmail('evil'), signup_redirect_url: 'https://evil.example.com/magic-link' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error_type).toBe('redirect_url_not_allowed');
  });

  // The whole flow as a user meets it: the page itself reads the token and authenticates.
  it.skipIf(!existsSync('/usr/bin/chromium'))(
    'signs in when the link is opened in a real browser',
    async () => {
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-quic',
          '--no-first-run',
        ],
      });
      try {
        const email = uniqueEmail('browser');
        await loginOrCreate(email);
        const link = await linkSentTo(email);
        const page = await browser.newPage();
        await page.goto(link.toString());
        await page.waitForFunction(
          () => !document.querySelector('h1')?.textContent?.includes('Signing you in'),
        );
        expect(await page.textContent('h1')).toBe('Welcome, you are registered');
        const shown = JSON.parse((await page.textContent('#result'))!);
        expect(shown).toMatchObject({ link_type: 'signup', session_token: expect.any(String) });
        // The page removes the token from the address bar once used.
        expect(new URL(page.url()).searchParams.get('token')).toBeNull();
        expectError(await authenticate(link.searchParams.get('token')!), 401, 'magic_link_used');
      } finally {
        await browser.close();
      }
    },
  );
});
