import { createRequire } from 'node:module';
import path from 'node:path';
import type { AppKeys, Latchkey } from '@latchkey/core';
import express, { type Router as ExpressRouter, Router } from 'express';

export const PASSKEYS_PAGE = '/passkeys';

/** @simplewebauthn/browser's ES module build, served as files: the page imports it as is. */
function browserLibraryDir(): string {
  const main = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  return path.join(path.dirname(main), '..', 'esm');
}

/**
 * A page that registers a passkey and signs in with it, on localhost. Sign-in is the browser
 * talking to `/v1/auth/webauthn/authentications/*` with the public token. Registration names a
 * user, so it needs the secret key: the page asks this host's two small endpoints, which create
 * the user and forward to `/v1/auth/webauthn/registrations/*` server side, as a real host's
 * backend would (after checking who is signed in, which a demo skips).
 */
export function passkeysPage(latchkey: Latchkey, keys: AppKeys): ExpressRouter {
  const router = Router();
  router.use(
    `${PASSKEYS_PAGE}/lib`,
    express.static(browserLibraryDir(), { index: false, fallthrough: false }),
  );
  router.get(PASSKEYS_PAGE, (_req, res) => {
    res.type('html').send(page(keys.public_token));
  });

  const api = async (route: string, body: unknown) => {
    const res = await latchkey.fetch(
      new Request(`http://latchkey.internal${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.secret_key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const json = express.json({ limit: '256kb' });

  router.post(`${PASSKEYS_PAGE}/register/begin`, json, async (req, res) => {
    const { email, domain } = (req.body ?? {}) as { email?: unknown; domain?: unknown };
    const user = await api('/v1/auth/users', typeof email === 'string' && email !== '' ? { email } : {});
    if (user.status !== 200) return void res.status(user.status).json(user.body);
    const begun = await api('/v1/auth/webauthn/registrations/begin', { domain, user_id: user.body.user_id });
    res.status(begun.status).json(begun.body);
  });
  router.post(`${PASSKEYS_PAGE}/register/create`, json, async (req, res) => {
    const { user_id, public_key_credential } = (req.body ?? {}) as Record<string, unknown>;
    const created = await api('/v1/auth/webauthn/registrations/create', { user_id, public_key_credential });
    res.status(created.status).json(created.body);
  });
  return router;
}

const page = (publicToken: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Latchkey passkeys</title>
<style>body{font:16px system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:1rem;overflow:auto}button{font:inherit;padding:.4rem 1rem;margin:.25rem 0}</style>
</head>
<body>
<h1>Passkeys</h1>
<p>Open this page at <code>http://localhost:&lt;port&gt;${PASSKEYS_PAGE}</code>: WebAuthn needs a domain, and the demo App allows <code>localhost</code>.</p>
<h2>Register</h2>
<p><label>Email (optional) <input id="email" type="email" autocomplete="username"></label></p>
<button id="register">Create a user with a passkey</button>
<h2>Sign in</h2>
<button id="signin">Sign in with a passkey</button>
<pre id="result" data-state="idle">Nothing yet.</pre>
<script type="module">
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '${PASSKEYS_PAGE}/lib/index.js';

const publicToken = ${JSON.stringify(publicToken)};
const out = document.getElementById('result');
const show = (state, value) => {
  out.dataset.state = state;
  out.textContent = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
};

async function post(url, body, key) {
  const headers = { 'content-type': 'application/json' };
  if (key) headers.authorization = 'Bearer ' + key;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(url + ' answered ' + res.status + ': ' + JSON.stringify(json));
  return json;
}

async function register() {
  const email = document.getElementById('email').value.trim();
  const begun = await post('${PASSKEYS_PAGE}/register/begin', { email, domain: location.hostname });
  const credential = await startRegistration({ optionsJSON: begun.public_key_credential_creation_options.publicKey });
  return post('${PASSKEYS_PAGE}/register/create', { user_id: begun.user_id, public_key_credential: credential });
}

async function signIn() {
  const begun = await post('/v1/auth/webauthn/authentications/begin', { domain: location.hostname }, publicToken);
  const assertion = await startAuthentication({ optionsJSON: begun.public_key_credential_request_options.publicKey });
  return post('/v1/auth/webauthn/authentications/complete', { public_key_credential: assertion, session_expires_in: 60 }, publicToken);
}

const run = (button, action, done) => button.addEventListener('click', async () => {
  show('working', 'Waiting for the authenticator…');
  try {
    show(done, await action());
  } catch (err) {
    show('failed', String(err && err.message || err));
  }
});
if (!browserSupportsWebAuthn()) show('unsupported', 'This browser does not support WebAuthn.');
run(document.getElementById('register'), register, 'registered');
run(document.getElementById('signin'), signIn, 'signed-in');
</script>
</body>
</html>
`;
