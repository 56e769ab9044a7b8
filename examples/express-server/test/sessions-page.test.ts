import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, uniqueEmail } from './api.js';
import { haveChromium, launchChromium, settle, warnWithoutChromium } from './chromium.js';
import { serverForFile } from './file-server.js';
import type { SpawnedServer } from './spawn-server.js';

warnWithoutChromium('sessions-page.test.ts');

// Three devices, told apart by the user agent their sign-in reports.
const DEVICES = {
  laptop:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
  phone:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Mobile Safari/537.36',
  tablet:
    'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
} as const;

const file = serverForFile();
let server: SpawnedServer;
let browser: Browser;

type Row = { id: string; current: boolean; device: string; lastActive: string; signOutButton: boolean };

describe.skipIf(!haveChromium)('the /sessions page ("your devices"), in Chromium', () => {
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

  /** Whether the server still takes a session token (200) or refuses it (401). */
  const sessionStatus = async (session_token: string) =>
    (
      await call(server.url, 'POST', '/v1/auth/sessions/authenticate', {
        key: server.keys.public_token,
        body: { session_token },
      })
    ).status;

  /** A new browser context (a device) signed in on the sign-in page by email and password. */
  async function signedInDevice(
    userAgent: string,
    email: string,
    password: string,
    signUp = false,
  ): Promise<{ context: BrowserContext; page: Page; userId: string; token: string }> {
    const context = await browser.newContext({ userAgent });
    const page = await context.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => 'lk' in window);
    await page.fill('#pw-email', email);
    await page.fill('#pw-password', password);
    const result = await settle(page, () => page.click(signUp ? '#pw-signup' : '#pw-signin'));
    expect(result.state, result.text).toBe(signUp ? 'signed-up' : 'signed-in');
    const session = (await held(page))!;
    expect(await sessionStatus(session.session_token)).toBe(200);
    return { context, page, userId: session.user_id, token: session.session_token };
  }

  /** Opens /sessions and waits for its list. */
  async function openSessions(page: Page): Promise<Row[]> {
    await page.goto(`${server.url}/sessions`);
    await page.locator('#result[data-state="listed"]').waitFor({ timeout: 20_000 });
    return rows(page);
  }

  const rows = (page: Page): Promise<Row[]> =>
    page.$$eval('#sessions-rows tr', (trs) =>
      trs.map((tr) => {
        const cells = tr.querySelectorAll('td');
        return {
          id: (tr as HTMLElement).dataset.sessionId ?? '',
          current: (tr as HTMLElement).dataset.current === 'true',
          device: cells[0]?.textContent ?? '',
          lastActive: cells[1]?.getAttribute('title') ?? '',
          signOutButton: tr.querySelector('button.signout-device') !== null,
        };
      }),
    );

  it('lists each device, signs out one, then all the others; the signed-out devices are refused', async () => {
    const email = uniqueEmail('devices');
    const password = `lantern ${randomBytes(9).toString('base64url')} meadow`;
    const laptop = await signedInDevice(DEVICES.laptop, email, password, true);
    const phone = await signedInDevice(DEVICES.phone, email, password);
    let tablet: Awaited<ReturnType<typeof signedInDevice>> | undefined;
    try {
      expect(phone.userId).toBe(laptop.userId);
      expect(phone.token).not.toBe(laptop.token);

      // Two sessions, exactly one of them this device, named from the user agent its sign-in sent.
      const listed = await openSessions(laptop.page);
      expect(listed).toHaveLength(2);
      expect(listed.filter((r) => r.current)).toHaveLength(1);
      const mine = listed.find((r) => r.current)!;
      const other = listed.find((r) => !r.current)!;
      expect(mine.device).toBe('Chrome on macOS');
      expect(other.device).toBe('Chrome on Android');
      expect(mine.signOutButton).toBe(false);
      expect(other.signOutButton).toBe(true);
      // Both signed in moments ago.
      for (const row of listed)
        expect(Math.abs(Date.parse(row.lastActive) - Date.now())).toBeLessThan(120_000);
      expect(await laptop.page.textContent(`#sessions-rows tr[data-session-id="${mine.id}"]`)).toContain(
        'This device',
      );

      // The phone sees the same two, with itself as the current one.
      const fromPhone = await openSessions(phone.page);
      expect(fromPhone.map((r) => r.id).sort()).toEqual(listed.map((r) => r.id).sort());
      expect(fromPhone.find((r) => r.current)!.id).toBe(other.id);

      // "Sign out" on the phone's row ends the phone's session, and only that.
      const ended = await settle(laptop.page, () =>
        laptop.page.click(`button.signout-device[data-session-id="${other.id}"]`),
      );
      expect(ended.state, ended.text).toBe('device-signed-out');
      expect(JSON.parse(ended.text)).toMatchObject({ session_id: other.id, current: false });
      expect(await rows(laptop.page)).toEqual([expect.objectContaining({ id: mine.id, current: true })]);
      expect(await sessionStatus(phone.token)).toBe(401);
      expect(await sessionStatus(laptop.token)).toBe(200);
      expect((await held(laptop.page))?.session_token).toBe(laptop.token);

      // The phone's next request is refused: its page forgets the session and returns to sign-in.
      await phone.page.goto(`${server.url}/sessions`);
      await phone.page.waitForURL(`${server.url}/`, { timeout: 20_000 });
      await phone.page.waitForFunction(() => 'lk' in window);
      expect(await held(phone.page)).toBeNull();
      expect(await phone.page.textContent('#session-line')).toBe('Signed out.');
      const refused = await call(server.url, 'GET', `/v1/auth/sessions?session_token=${phone.token}`, {
        key: server.keys.public_token,
      });
      expect(refused.status).toBe(401);

      // A third device, then "Sign out all other devices" from the laptop leaves the laptop alone.
      tablet = await signedInDevice(DEVICES.tablet, email, password);
      expect(tablet.userId).toBe(laptop.userId);
      const three = await openSessions(laptop.page);
      expect(three).toHaveLength(2);
      expect(three.find((r) => !r.current)!.device).toBe('Safari on iOS');
      const others = await settle(laptop.page, () => laptop.page.click('#sessions-signout-others'));
      expect(others.state, others.text).toBe('others-signed-out');
      expect(JSON.parse(others.text)).toMatchObject({
        current: false,
        session_ids: [three.find((r) => !r.current)!.id],
      });
      expect(await rows(laptop.page)).toEqual([expect.objectContaining({ id: mine.id, current: true })]);
      expect(await sessionStatus(tablet.token)).toBe(401);
      expect(await sessionStatus(laptop.token)).toBe(200);
      await tablet.page.goto(`${server.url}/sessions`);
      await tablet.page.waitForURL(`${server.url}/`, { timeout: 20_000 });
      await tablet.page.waitForFunction(() => 'lk' in window);
      expect(await held(tablet.page)).toBeNull();

      // The laptop itself is still signed in: a reload lists its one session.
      expect(await openSessions(laptop.page)).toEqual([
        expect.objectContaining({ id: mine.id, current: true }),
      ]);
    } finally {
      await laptop.context.close();
      await phone.context.close();
      await tablet?.context.close();
    }
  });

  it('sends a visitor with no session to the sign-in page', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${server.url}/sessions`);
      await page.waitForURL(`${server.url}/`, { timeout: 20_000 });
      expect(await page.title()).toBe('Latchkey sign-in');
    } finally {
      await page.close();
    }
  });
});
