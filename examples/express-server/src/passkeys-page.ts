import type { AppKeys } from '@latchkey/core';
import { type Router as ExpressRouter, Router } from 'express';
import { clientPage } from './page-layout.js';

export const PASSKEYS_PAGE = '/passkeys';

/**
 * Adds a passkey to the signed-in user and signs in with it, through @latchkey/client with the
 * public token only: registration sends the session, so the server adds the passkey to that
 * session's user and to no other. Open it at `http://localhost:<port>/passkeys` (WebAuthn needs
 * a domain, and the demo App allows `localhost`).
 */
export function passkeysPage(keys: AppKeys): ExpressRouter {
  const router = Router();
  router.get(PASSKEYS_PAGE, (_req, res) => {
    res.type('html').send(clientPage('Latchkey passkeys', keys.public_token, body, script));
  });
  return router;
}

const body = `<p>Sign in first (on <a href="/">the sign-in page</a>), then add a passkey to your account.</p>
<button id="register">Add a passkey to my account</button>
<button id="signin">Sign in with a passkey</button>
<button id="signout">Sign out</button>`;

const script = `run('register', () => lk.passkeys.register({ name: 'This browser' }), 'registered');
run('signin', () => lk.passkeys.signIn(), 'signed-in');
run('signout', async () => {
  await lk.session.signOut();
  return { signed_out: true };
}, 'signed-out');`;
