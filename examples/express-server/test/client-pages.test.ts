import path from 'node:path';
import { readOutbox } from '@latchkey/senders';
import { encodeBase58, getBytes, Wallet } from 'ethers';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import nacl from 'tweetnacl';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, uniqueEmail } from './api.js';
import { haveChromium, launchChromium, press, warnWithoutChromium } from './chromium.js';
import { serverForFile } from './file-server.js';
import type { SpawnedServer } from './spawn-server.js';

/** Debian's Chromium; CI installs it (`.ci/run`). */
warnWithoutChromium('client-pages.test.ts');

const file = serverForFile();
let server: SpawnedServer;
let browser: Browser;
let context: BrowserContext | undefined;

describe.skipIf(!haveChromium)('the example pages on @latchkey/client, in Chromium', () => {
  beforeAll(async () => {
    server = file.server();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  /** WebAuthn needs a domain: the demo App allows localhost (any port). */
  const origin = () => `http://localhost:${new URL(server.url).port}`;

  async function openPage(pathname = '/'): Promise<Page> {
    context ??= await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin()}${pathname}`);
    await page.waitForFunction(() => 'lk' in window);
    return page;
  }

  const outbox = async (to: string, kind: string) =>
    (await readOutbox(path.join(server.dataDir, 'outbox.jsonl')))
      .filter((e) => e.to === to && e.kind === kind)
      .at(-1);

  const heldSession = (page: Page) =>
    page.evaluate(() => (window as any).lk.session.get()) as Promise<{
      user_id: string;
      session_token: string;
      session_jwt: string;
    } | null>;

  const sessionStatus = async (credential: Record<string, string>) =>
    (
      await call(server.url, 'POST', '/v1/auth/sessions/authenticate', {
        key: server.keys.public_token,
        body: credential,
      })
    ).status;

  /** Email passcode sign-in through the page, with the code read from the outbox. */
  async function signInByEmail(page: Page, email = uniqueEmail('client')) {
    await page.fill('#otp-email', email);
    const sent = await press(page, '#otp-send');
    expect(sent.state, sent.text).toBe('code-sent');
    const message = await outbox(email, 'otp');
    expect(message?.code).toMatch(/^\d{6}$/);
    await page.fill('#otp-code', message!.code!);
    const signedIn = await press(page, '#otp-verify');
    expect(signedIn.state, signedIn.text).toBe('signed-in');
    return { email, user_id: signedIn.json.user_id as string };
  }

  it('email OTP sign-in, JWT refresh (asked and by the timer) and sign-out', async () => {
    const page = await openPage();
    const { user_id } = await signInByEmail(page);
    const held = (await heldSession(page))!;
    expect(held.user_id).toBe(user_id);
    expect(await sessionStatus({ session_token: held.session_token })).toBe(200);
    expect(await page.textContent('#session-line')).toContain(user_id);

    const refreshed = await press(page, '#refresh');
    expect(refreshed.state, refreshed.text).toBe('refreshed');
    const after = (await heldSession(page))!;
    expect(after.session_token).toBe(held.session_token);
    expect(await sessionStatus({ session_jwt: after.session_jwt })).toBe(200);

    // A client whose JWT is refreshed 2 s after sign-in (300 s lifetime, refresh 298 s before).
    const timed = await page.evaluate(async () => {
      const email = `timer-${crypto.randomUUID()}@example.com`;
      const sent = await (window as any).lk.otps.email.loginOrCreate({ email });
      return { email, method_id: sent.method_id as string };
    });
    const code = (await outbox(timed.email, 'otp'))!.code!;
    const events = await page.evaluate(
      async ({ token, method_id, code }) => {
        const lk = (window as any).createLatchkeyClient({ publicToken: token, refreshBeforeSeconds: 298 });
        const seen: string[] = [];
        lk.session.onChange((c: { type: string }) => seen.push(c.type));
        const first = (await lk.otps.verify({ method_id, otp: code })).session_jwt;
        await new Promise((resolve) => setTimeout(resolve, 4000));
        const second = lk.session.get().session_jwt;
        lk.close();
        return { seen, changed: first !== second, second };
      },
      { token: server.keys.public_token, method_id: timed.method_id, code },
    );
    expect(events.seen.slice(0, 2)).toEqual(['signed-in', 'refreshed']);
    expect(await sessionStatus({ session_jwt: events.second })).toBe(200);

    const out = await press(page, '#signout');
    expect(out.state, out.text).toBe('signed-out');
    expect(await heldSession(page)).toBeNull();
    expect(await sessionStatus({ session_token: held.session_token })).toBe(401);
    expect(await page.evaluate(() => (window as any).sessionEvents)).toEqual([
      'signed-in',
      'refreshed',
      'signed-out',
    ]);
    // The client's typed error, from the page: a wrong code answers 401 with its catalogue type.
    const failed = await page.evaluate(async () => {
      try {
        await (window as any).lk.otps.verify({
          method_id: 'email-test-00000000-0000-4000-8000-000000000000',
          otp: '000000',
        });
        return null;
      } catch (e: any) {
        return { name: e.name, status: e.status, error_type: e.error_type, request_id: e.request_id };
      }
    });
    expect(failed).toMatchObject({
      name: 'LatchkeyClientError',
      status: expect.any(Number),
      error_type: expect.any(String),
    });
    expect(failed!.request_id).toMatch(/^req_/);
  });

  it('magic link: sent from the sign-in page, opened and authenticated by the landing page', async () => {
    const page = await openPage();
    const email = uniqueEmail('link');
    await page.fill('#magic-email', email);
    expect((await press(page, '#magic-send')).state).toBe('link-sent');
    const link = new URL((await outbox(email, 'magic_link'))!.url!);
    const landing = await context!.newPage();
    await landing.goto(link.href);
    const result = landing.locator('#result:not([data-state="working"]):not([data-state="idle"])');
    await result.waitFor({ timeout: 20_000 });
    expect(await result.getAttribute('data-state'), (await result.textContent()) ?? '').toBe('registered');
    const body = JSON.parse((await result.textContent())!);
    // The token is gone from the address bar once spent.
    expect(new URL(landing.url()).searchParams.has('token')).toBe(false);
    const held = (await heldSession(landing))!;
    expect(held.user_id).toBe(body.user_id);
    expect(await sessionStatus({ session_token: held.session_token })).toBe(200);
  });

  it('passkey: added to the signed-in user (CDP virtual authenticator), then used to sign in', async () => {
    context = await browser.newContext();
    const signInPage = await openPage();
    const cdp = await context.newCDPSession(signInPage);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    const { user_id } = await signInByEmail(signInPage);
    await signInPage.goto(`${origin()}/passkeys`);
    await signInPage.waitForFunction(() => 'lk' in window);
    const registered = await press(signInPage, '#register');
    expect(registered.state, registered.text).toBe('registered');
    expect(registered.json.user_id).toBe(user_id);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.userHandle).toBe(Buffer.from(user_id).toString('base64'));

    expect((await press(signInPage, '#signout')).state).toBe('signed-out');
    const signedIn = await press(signInPage, '#signin');
    expect(signedIn.state, signedIn.text).toBe('signed-in');
    expect(signedIn.json).toMatchObject({
      user_id,
      webauthn_credential_id: registered.json.webauthn_credential_id,
    });
    expect(await sessionStatus({ session_token: signedIn.json.session_token })).toBe(200);
  });

  it('TOTP: enrolment shown, activated and used with codes from otpauth; a recovery code signs in too', async () => {
    const page = await openPage();
    const { user_id } = await signInByEmail(page);
    const enrolled = await press(page, '#totp-enrol');
    expect(enrolled.state, enrolled.text).toBe('enrolled');
    expect(enrolled.json).toMatchObject({
      user_id,
      qrDataUrl: expect.stringMatching(/^data:image\/png;base64,/),
    });
    expect(await page.getAttribute('#totp-qr', 'src')).toBe(enrolled.json.qrDataUrl);
    const totp = new TOTP({ secret: Secret.fromBase32(enrolled.json.secret) });
    await page.fill('#totp-code', totp.generate());
    const active = await press(page, '#totp-verify');
    expect(active.state, active.text).toBe('totp-active');
    // The next period's code (the window is ±1 step): a code is never accepted twice.
    await page.fill('#totp-code', totp.generate({ timestamp: Date.now() + 30_000 }));
    const authed = await press(page, '#totp-authenticate');
    expect(authed.state, authed.text).toBe('signed-in');
    expect(authed.json.session.factors.map((f: { type: string }) => f.type)).toEqual(['otp', 'totp']);
    await page.fill('#totp-code', enrolled.json.recoveryCodes[0]);
    const recovered = await press(page, '#totp-recover');
    expect(recovered.state, recovered.text).toBe('signed-in');
    expect(recovered.json.user_id).toBe(user_id);
    // Signed out, the host's TOTP routes refuse.
    await press(page, '#signout');
    await page.fill('#totp-code', totp.generate());
    const refused = await press(page, '#totp-authenticate');
    expect(refused.state).toBe('failed');
    expect(refused.text).toMatch(/^401 /);
  });

  it('ethereum wallet sign-in through an injected EIP-1193 provider backed by an ethers wallet', async () => {
    context = await browser.newContext();
    const wallet = Wallet.createRandom();
    await context.exposeFunction('ethersPersonalSign', (hex: string) => wallet.signMessage(getBytes(hex)));
    await context.addInitScript((address: string) => {
      (window as any).ethereum = {
        request: async ({ method, params }: { method: string; params?: unknown[] }) => {
          if (method === 'eth_requestAccounts') return [address];
          if (method === 'personal_sign') return (window as any).ethersPersonalSign(params![0]);
          throw new Error(`unsupported ${method}`);
        },
      };
    }, wallet.address);
    const page = await openPage();
    const signedIn = await press(page, '#eth-signin');
    expect(signedIn.state, signedIn.text).toBe('signed-in');
    expect(signedIn.json).toMatchObject({ user_created: true, wallet: { public_address: wallet.address } });
    expect(await sessionStatus({ session_token: signedIn.json.session_token })).toBe(200);
  });

  it('solana wallet sign-in through an injected signMessage backed by tweetnacl', async () => {
    context = await browser.newContext();
    const keys = nacl.sign.keyPair();
    const address = encodeBase58(keys.publicKey);
    await context.exposeFunction('naclSign', (message: number[]) =>
      Array.from(nacl.sign.detached(Uint8Array.from(message), keys.secretKey)),
    );
    await context.addInitScript((publicKey: string) => {
      (window as any).solana = {
        publicKey: { toBase58: () => publicKey },
        signMessage: async (message: Uint8Array) => ({
          signature: Uint8Array.from(await (window as any).naclSign(Array.from(message))),
        }),
      };
    }, address);
    const page = await openPage();
    const signedIn = await press(page, '#sol-signin');
    expect(signedIn.state, signedIn.text).toBe('signed-in');
    expect(signedIn.json).toMatchObject({ user_created: true, wallet: { public_address: address } });
    expect(await sessionStatus({ session_token: signedIn.json.session_token })).toBe(200);
  });
});

describe("the host's TOTP routes refuse bad input in the documented error shape", () => {
  const post = async (route: string, body: string, bearer?: string) => {
    const res = await fetch(`${file.server().url}/account/totp${route}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('without a session, with a wrong field type, a missing field or a body that is not JSON', async () => {
    const anonymous = await post('/authenticate', JSON.stringify({ totp_code: '123456' }));
    expect(anonymous).toMatchObject({
      status: 401,
      body: { status_code: 401, error_type: expect.any(String) },
    });

    const server = file.server();
    const email = uniqueEmail('totp-bad');
    const sent = await call(server.url, 'POST', '/v1/auth/otps/email/login_or_create', {
      key: server.keys.public_token,
      body: { email },
    });
    const code = (await readOutbox(path.join(server.dataDir, 'outbox.jsonl')))
      .filter((e) => e.to === email)
      .at(-1)!.code!;
    const session = await call(server.url, 'POST', '/v1/auth/otps/verify', {
      key: server.keys.public_token,
      body: { method_id: sent.body.method_id, otp: code, session_expires_in: 5 },
    });
    const token = session.body.session_token as string;
    for (const [route, body, error_type] of [
      ['/authenticate', JSON.stringify({ totp_code: 123456 }), 'invalid_field'],
      ['/authenticate', JSON.stringify({}), 'missing_field'],
      ['/recover', JSON.stringify({ recovery_code: 'x'.repeat(5000) }), 'invalid_field'],
      ['/verify', '{"totp_code":', 'invalid_json'],
      ['/authenticate', JSON.stringify({ totp_code: '123456' }), 'totp_not_found'],
    ] as const) {
      const answer = await post(route, body, token);
      expect(answer.status, `${route} ${body.slice(0, 40)}`).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(answer.body).toMatchObject({
        status_code: answer.status,
        error_type,
        request_id: expect.any(String),
      });
    }
  });
});
