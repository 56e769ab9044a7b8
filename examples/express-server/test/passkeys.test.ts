import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, type CDPSession, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, uniqueEmail } from './api.js';
import { type StorageTarget, storageTarget } from './database.js';
import {
  newDataDir,
  removeDataDirs,
  type SpawnedServer,
  spawnServer,
  stopAllServers,
} from './spawn-server.js';

/** Debian's Chromium; CI installs it (`.ci/run`). */
const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.warn(
    `passkeys.test.ts: SKIPPED, ${CHROMIUM} is absent. Install it with \`apt-get install -y chromium\` (.ci/run does).`,
  );

const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

let server: SpawnedServer;
let target: StorageTarget;
let browser: Browser;

describe.skipIf(!haveChromium)('the passkeys page in Chromium with a virtual authenticator', () => {
  beforeAll(async () => {
    target = storageTarget();
    server = await spawnServer(await newDataDir(), target.env);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await stopAllServers();
    await target?.dispose();
    await removeDataDirs();
  });

  let context: BrowserContext | undefined;
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  /** A fresh browser profile with a CTAP2 platform authenticator that always verifies the user. */
  async function openPage(): Promise<{
    page: Page;
    cdp: CDPSession;
    authenticatorId: string;
    posts: string[];
  }> {
    context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
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
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(new URL(r.url()).pathname);
    });
    // WebAuthn needs a domain: the demo App allows localhost (any port), never 127.0.0.1.
    const { port } = new URL(server.url);
    await page.goto(`http://localhost:${port}/passkeys`);
    return { page, cdp, authenticatorId, posts };
  }

  /** Clicks a button and returns the page's result once it settles. */
  async function press(page: Page, button: string): Promise<{ state: string; text: string }> {
    await page.click(button);
    const result = page.locator('#result:not([data-state="working"]):not([data-state="idle"])');
    await result.waitFor({ timeout: 20_000 });
    return {
      state: (await result.getAttribute('data-state')) ?? '',
      text: (await result.textContent()) ?? '',
    };
  }

  it('registers a passkey through begin/create, signs in through begin/complete and gets a session', async () => {
    const { page, cdp, authenticatorId, posts } = await openPage();
    const email = uniqueEmail('passkey');
    await page.fill('#email', email);

    const registered = await press(page, '#register');
    expect(registered.state, registered.text).toBe('registered');
    const { user_id, webauthn_credential_id } = JSON.parse(registered.text);
    expect(user_id).toMatch(/^user_/);
    expect(webauthn_credential_id).toMatch(/^webauthn_/);

    // The authenticator holds a discoverable credential for localhost, naming the user.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({
      isResidentCredential: true,
      rpId: 'localhost',
      userHandle: Buffer.from(user_id).toString('base64'),
    });
    const user = await call(server.url, 'GET', `/v1/auth/users/${user_id}`, { key: server.keys.secret_key });
    expect(user.body).toMatchObject({
      emails: [{ email }],
      webauthn_credentials: [{ webauthn_credential_id, domain: 'localhost', authenticator_type: 'platform' }],
    });

    const signedIn = await press(page, '#signin');
    expect(signedIn.state, signedIn.text).toBe('signed-in');
    const body = JSON.parse(signedIn.text);
    expect(body).toMatchObject({
      user_id,
      webauthn_credential_id,
      session_token: expect.any(String),
      session_jwt: expect.any(String),
      session: {
        user_id,
        factors: [
          {
            type: 'webauthn',
            delivery_channel: 'webauthn',
            method: { method_type: 'webauthn_credential', webauthn_credential_id },
          },
        ],
      },
    });
    const session = await call(server.url, 'POST', '/v1/auth/sessions/authenticate', {
      key: server.keys.public_token,
      body: { session_token: body.session_token },
    });
    expect(session.status).toBe(200);
    expect(session.body.user_id).toBe(user_id);

    expect(posts).toEqual([
      '/passkeys/register/begin',
      '/passkeys/register/create',
      '/v1/auth/webauthn/authentications/begin',
      '/v1/auth/webauthn/authentications/complete',
    ]);
  });

  it('cannot sign in with a passkey whose credential was deleted', async () => {
    const { page } = await openPage();
    const registered = await press(page, '#register');
    expect(registered.state, registered.text).toBe('registered');
    const { user_id, webauthn_credential_id } = JSON.parse(registered.text);
    expect((await press(page, '#signin')).state).toBe('signed-in');

    const res = await fetch(
      `${server.url}/v1/auth/users/webauthn_credentials/${webauthn_credential_id}/delete`,
      {
        method: 'DELETE',
        headers: { authorization: `Bearer ${server.keys.secret_key}` },
      },
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: expect.any(String), user_id });

    // The authenticator still offers the passkey; the server no longer knows it.
    const after = await press(page, '#signin');
    expect(after.state).toBe('failed');
    expect(after.text).toContain('401');
    expect(after.text).toContain('webauthn_credential_not_allowed');
  });
});
