import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Router as ExpressRouter, Router } from 'express';

export const PASSKEYS_PAGE = '/passkeys';

/** @simplewebauthn/browser's ES module build, served as files: the page imports it as is. */
function browserLibraryDir(): string {
  const main = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  return path.join(path.dirname(main), '..', 'esm');
}

/**
 * The passkeys page, and @simplewebauthn/browser served for pages that use it. Adding a passkey
 * takes the user's live session: the browser signs in first (an email code), then calls
 * `/v1/auth/webauthn/registrations/*` itself with the public token and that session. This host
 * has no route that registers a passkey with the secret key on an anonymous browser's behalf:
 * that would let anyone plant a passkey in an account made for someone else's email address.
 */
export function passkeysPage(): ExpressRouter {
  const router = Router();
  const library = express.static(browserLibraryDir(), { index: false, fallthrough: false });
  // Other methods go on to the API's answer (JSON), not static's empty 405.
  router.use(`${PASSKEYS_PAGE}/lib`, (req, res, next) =>
    req.method === 'GET' || req.method === 'HEAD' ? library(req, res, next) : next(),
  );
  router.get(PASSKEYS_PAGE, (_req, res) => {
    res.type('html').send(page());
  });
  return router;
}

const page = () => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Latchkey passkeys</title>
<style>body{font:16px system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}</style>
</head>
<body>
<h1>Passkeys</h1>
<p>Adding a passkey needs you to be signed in: sign in first (for example with an email code),
then your browser registers the passkey with your session. No one can add a passkey to an account
they are not signed in to.</p>
<p>Open this page at <code>http://localhost:&lt;port&gt;${PASSKEYS_PAGE}</code>: WebAuthn needs a domain, and the demo App allows <code>localhost</code>.</p>
</body>
</html>
`;
