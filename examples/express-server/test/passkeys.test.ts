import { existsSync } from 'node:fs';
import path from 'node:path';
import { readOutbox } from '@latchkey/senders';
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

/** Runs in the page: `register` adds a passkey, `signIn` uses one (see inPage). */
const IN_PAGE = `async ({ action, publicToken, session }) => {
          const lib = await import('/passkeys/lib/index.js');
          const post = async (route, body) => {
            const res = await fetch(route, {
              method: 'POST',
              headers: { authorization: 'Bearer ' + publicToken, 'content-type': 'application/json' },
              body: JSON.stringify(body),
            });
            return { status: res.status, body: await res.json() };
          };
          const domain = location.hostname;
          if (action === 'register') {
            const begun = await post('/v1/auth/webauthn/registrations/begin', { domain, ...session });
            if (begun.status !== 200) return begun;
            const credential = await lib.startRegistration({
              optionsJSON: begun.body.public_key_credential_creation_options.publicKey,
            });
            return post('/v1/auth/webauthn/registrations/create', {
              public_key_credential: credential,
              ...session,
            });
          }
          const begun = await post('/v1/auth/webauthn/authentications/begin', { domain });
          const assertion = await lib.startAuthentication({
            optionsJSON: begun.body.public_key_credential_request_options.publicKey,
          });
          return post('/v1/auth/webauthn/authentications/complete', {
            public_key_credential: assertion,
            session_expires_in: 60,
          });
        }`;

let server: SpawnedServer;
let target: StorageTarget;
let browser: Browser;

describe.skipIf(!haveChromium)(
  'passkeys in Chromium with a virtual authenticator, added with a session',
  () => {
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

    /** Signs a new user in by email code (the code from the data folder's outbox): their session. */
    async function signInByEmail(email: string): Promise<{ user_id: string; session_token: string }> {
      const sent = await call(server.url, 'POST', '/v1/auth/otps/email/login_or_create', {
        key: server.keys.public_token,
        body: { email },
      });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const entry = (await readOutbox(path.join(server.dataDir, 'outbox.jsonl')))
        .filter((e) => e.to === email && e.channel === 'email')
        .at(-1);
      expect(entry?.code, `no code to ${email} in the outbox`).toMatch(/^\d{6}$/);
      const verified = await call(server.url, 'POST', '/v1/auth/otps/verify', {
        key: server.keys.public_token,
        body: { method_id: sent.body.method_id, otp: entry!.code, session_expires_in: 60 },
      });
      expect(verified.status, JSON.stringify(verified.body)).toBe(200);
      return { user_id: sent.body.user_id as string, session_token: verified.body.session_token as string };
    }

    /**
     * In the page: @simplewebauthn/browser (served by the example), the public token and the
     * session, as a signed-in page does it. `register` adds a passkey, `signIn` uses one.
     */
    function inPage(
      page: Page,
      action: 'register' | 'signIn',
      args: { publicToken: string; session?: Record<string, unknown> },
    ): Promise<{ status: number; body: any }> {
      // A string, so the test runner's transform leaves the page's dynamic import alone.
      const input = JSON.stringify({ action, publicToken: args.publicToken, session: args.session });
      return page.evaluate(`(${IN_PAGE})(${input})`);
    }

    it('registers a passkey with the public token and a live session, signs in with it and gets a session', async () => {
      const { page, cdp, authenticatorId, posts } = await openPage();
      const email = uniqueEmail('passkey');
      const { user_id, session_token } = await signInByEmail(email);
      const publicToken = server.keys.public_token;

      // Naming a user from the browser is refused; so is registering without a session.
      const named = await inPage(page, 'register', { publicToken, session: { user_id } });
      expect([named.status, named.body.error_type]).toEqual([403, 'secret_key_required']);
      const anonymous = await inPage(page, 'register', { publicToken, session: {} });
      expect([anonymous.status, anonymous.body.error_type]).toEqual([400, 'missing_field']);

      const registered = await inPage(page, 'register', { publicToken, session: { session_token } });
      expect(registered.status, JSON.stringify(registered.body)).toBe(200);
      const { webauthn_credential_id } = registered.body;
      expect(registered.body.user_id).toBe(user_id);
      expect(webauthn_credential_id).toMatch(/^webauthn_/);

      // The authenticator holds a discoverable credential for localhost, naming the user.
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      expect(credentials).toHaveLength(1);
      expect(credentials[0]).toMatchObject({
        isResidentCredential: true,
        rpId: 'localhost',
        userHandle: Buffer.from(user_id).toString('base64'),
      });
      const user = await call(server.url, 'GET', `/v1/auth/users/${user_id}`, {
        key: server.keys.secret_key,
      });
      expect(user.body).toMatchObject({
        emails: [{ email }],
        webauthn_credentials: [
          { webauthn_credential_id, domain: 'localhost', authenticator_type: 'platform' },
        ],
      });

      const signedIn = await inPage(page, 'signIn', { publicToken });
      expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
      expect(signedIn.body).toMatchObject({
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
        body: { session_token: signedIn.body.session_token },
      });
      expect(session.status).toBe(200);
      expect(session.body.user_id).toBe(user_id);

      expect(posts).toEqual([
        '/v1/auth/webauthn/registrations/begin',
        '/v1/auth/webauthn/registrations/begin',
        '/v1/auth/webauthn/registrations/begin',
        '/v1/auth/webauthn/registrations/create',
        '/v1/auth/webauthn/authentications/begin',
        '/v1/auth/webauthn/authentications/complete',
      ]);
    });

    it('cannot sign in with a passkey whose credential was deleted', async () => {
      const { page } = await openPage();
      const publicToken = server.keys.public_token;
      const { user_id, session_token } = await signInByEmail(uniqueEmail('passkey-deleted'));
      const registered = await inPage(page, 'register', { publicToken, session: { session_token } });
      expect(registered.status, JSON.stringify(registered.body)).toBe(200);
      const { webauthn_credential_id } = registered.body;
      expect((await inPage(page, 'signIn', { publicToken })).status).toBe(200);

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
      const after = await inPage(page, 'signIn', { publicToken });
      expect([after.status, after.body.error_type]).toEqual([401, 'webauthn_credential_not_allowed']);
    });
  },
);
