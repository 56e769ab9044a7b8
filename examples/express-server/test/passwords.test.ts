import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readOutbox } from '@latchkey/senders';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, uniqueEmail } from './api.js';
import { haveChromium, launchChromium, press, warnWithoutChromium } from './chromium.js';
import { serverForFile } from './file-server.js';
import { exampleDir, type SpawnedServer } from './spawn-server.js';

warnWithoutChromium('passwords.test.ts');

/** The message docs/errors.md documents for an error type: what the page must show. */
function documentedMessage(errorType: string): string {
  const doc = readFileSync(path.join(exampleDir, '../../docs/errors.md'), 'utf8');
  const row = new RegExp(`^\\| \\d{3} \\| \`${errorType}\` \\| (.+) \\|$`, 'm').exec(doc);
  if (!row) throw new Error(`docs/errors.md has no row for ${errorType}`);
  return row[1]!;
}

/** A password zxcvbn scores 4, different every time. */
const strongPassword = () => `lantern ${randomBytes(9).toString('base64url')} meadow`;

const file = serverForFile();
let server: SpawnedServer;
let browser: Browser;

describe.skipIf(!haveChromium)('email and password on the example pages, in Chromium', () => {
  beforeAll(async () => {
    server = file.server();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const held = (page: Page) =>
    page.evaluate(() => (window as any).lk.session.get()) as Promise<{
      user_id: string;
      session_token: string;
    } | null>;

  const sessionStatus = async (session_token: string) =>
    (
      await call(server.url, 'POST', '/v1/auth/sessions/authenticate', {
        key: server.keys.public_token,
        body: { session_token },
      })
    ).status;

  async function signIn(page: Page, email: string, password: string) {
    await page.fill('#pw-email', email);
    await page.fill('#pw-password', password);
    return press(page, '#pw-signin');
  }

  it('signs up, is refused a wrong password, signs in, resets through the emailed link', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(server.url);
      await page.waitForFunction(() => 'lk' in window);
      const email = uniqueEmail('password');
      const first = strongPassword();

      // Sign-up with the public token: the demo App allows it, and the page signs in next.
      await page.fill('#pw-email', email);
      await page.fill('#pw-password', first);
      const signedUp = await press(page, '#pw-signup');
      expect(signedUp.state, signedUp.text).toBe('signed-up');
      const userId = signedUp.json.user_id as string;
      expect(userId).toMatch(/^user_/);
      expect((await held(page))?.user_id).toBe(userId);
      expect(await sessionStatus((await held(page))!.session_token)).toBe(200);
      expect(await page.textContent('#session-line')).toContain(userId);

      expect((await press(page, '#signout')).state).toBe('signed-out');
      expect(await held(page)).toBeNull();

      const refused = await signIn(page, email, `${first}!`);
      expect(refused.state).toBe('failed');
      expect(refused.text).toBe(`401 invalid_credentials: ${documentedMessage('invalid_credentials')}`);
      expect(await held(page)).toBeNull();

      const signedIn = await signIn(page, email, first);
      expect(signedIn.state, signedIn.text).toBe('signed-in');
      expect(signedIn.json.user_id).toBe(userId);
      const before = (await held(page))!.session_token;
      expect(await sessionStatus(before)).toBe(200);

      // Forgot password: the link in the email leads to the example's own page.
      expect((await press(page, '#pw-forgot')).state).toBe('reset-sent');
      const message = (await readOutbox(path.join(server.dataDir, 'outbox.jsonl')))
        .filter((e) => e.to === email && e.kind === 'password_reset')
        .at(-1);
      expect(message, `no reset email to ${email}`).toBeDefined();
      expect(message!.text).toContain(message!.url);
      const link = new URL(message!.url!);
      expect(`${link.origin}${link.pathname}`).toBe(`${server.url}/reset-password`);
      const token = link.searchParams.get('token')!;

      const resetPage = await context.newPage();
      await resetPage.goto(link.href);
      await resetPage.waitForFunction(() => 'lk' in window);
      // The token leaves the address bar before anything is sent.
      expect(new URL(resetPage.url()).searchParams.has('token')).toBe(false);
      // A refused password leaves the link usable.
      await resetPage.fill('#reset-password', 'password1');
      const weak = await press(resetPage, '#reset-submit');
      expect(weak.state).toBe('failed');
      expect(weak.text).toMatch(/^400 weak_password: /);
      const second = strongPassword();
      await resetPage.fill('#reset-password', second);
      const reset = await press(resetPage, '#reset-submit');
      expect(reset.state, reset.text).toBe('password-reset');
      expect(reset.json.user_id).toBe(userId);
      expect(await sessionStatus((await held(resetPage))!.session_token)).toBe(200);
      // A reset revokes the sessions opened before it, and the link is spent.
      expect(await sessionStatus(before)).toBe(401);
      expectError(
        await call(server.url, 'POST', '/v1/auth/passwords/email/reset', {
          key: server.keys.public_token,
          body: { token, password: strongPassword() },
        }),
        401,
        'password_reset_used',
      );

      // The pages share the session (localStorage): the sign-in page signs the new one out.
      await page.reload();
      await page.waitForFunction(() => 'lk' in window);
      expect((await held(page))?.session_token).toBe((await held(resetPage))!.session_token);
      expect((await press(page, '#signout')).state).toBe('signed-out');
      expect(await held(page)).toBeNull();
      const old = await signIn(page, email, first);
      expect(old.state).toBe('failed');
      expect(old.text).toBe(`401 invalid_credentials: ${documentedMessage('invalid_credentials')}`);
      const fresh = await signIn(page, email, second);
      expect(fresh.state, fresh.text).toBe('signed-in');
      expect(fresh.json.user_id).toBe(userId);
    } finally {
      await context.close();
    }
  });

  it('a reset page opened without a token says so and sends nothing', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${server.url}/reset-password`);
      await page.locator('#result[data-state="no-token"]').waitFor({ timeout: 20_000 });
      await page.fill('#reset-password', strongPassword());
      const result = await press(page, '#reset-submit');
      expect(result.state).toBe('failed');
      expect(result.text).toContain('no_token');
    } finally {
      await page.close();
    }
  });
});

describe('the demo App’s password settings', () => {
  it('a public sign-up for a taken address answers like a new one and emails its owner a notice', async () => {
    const server = file.server();
    const email = uniqueEmail('taken');
    const signUp = () =>
      call(server.url, 'POST', '/v1/auth/passwords/create', {
        key: server.keys.public_token,
        body: { email, password: strongPassword() },
      });
    const first = await signUp();
    expect(first.status).toBe(200);
    const second = await signUp();
    expect(second.status).toBe(200);
    expect(Object.keys(second.body).sort()).toEqual(Object.keys(first.body).sort());
    expect(second.body.user_id).not.toBe(first.body.user_id);
    const notices = (await readOutbox(path.join(server.dataDir, 'outbox.jsonl'))).filter(
      (e) => e.to === email && e.kind === 'password_notice',
    );
    expect(notices).toHaveLength(1);
  });

  it('refuses a reset link to a URL off the allow-list', async () => {
    const server = file.server();
    const res = await call(server.url, 'POST', '/v1/auth/passwords/email/reset/start', {
      key: server.keys.public_token,
      body: { email: uniqueEmail('evil'), reset_redirect_url: 'https://evil.example.com/reset-password' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error_type: 'redirect_url_not_allowed',
      error_field: 'reset_redirect_url',
    });
  });
});
