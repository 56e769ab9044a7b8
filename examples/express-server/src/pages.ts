import type { AppKeys } from '@latchkey/core';
import { type Router as ExpressRouter, Router } from 'express';

export const MAGIC_LINK_PAGE = '/magic-link';

/**
 * The demo App's own pages on localhost. The magic-link page is where links lead: it reads
 * `token` and POSTs it to authenticate from the browser. A GET never consumes a token, so mail
 * scanners that follow links do no harm.
 */
export function demoPages(keys: AppKeys): ExpressRouter {
  const router = Router();
  router.get(MAGIC_LINK_PAGE, (_req, res) => {
    res.type('html').send(magicLinkPage(keys.public_token));
  });
  return router;
}

const magicLinkPage = (publicToken: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Latchkey magic link</title>
<style>body{font:16px system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:1rem;overflow:auto}</style>
</head>
<body>
<h1>Signing you in…</h1>
<pre id="result">Waiting for the token…</pre>
<script type="module">
const out = document.getElementById('result');
const heading = document.querySelector('h1');
const token = new URLSearchParams(location.search).get('token');
if (!token) {
  heading.textContent = 'No token in this link';
  out.textContent = 'Open the link from your email.';
} else {
  const res = await fetch('/v1/auth/magic_links/authenticate', {
    method: 'POST',
    headers: { authorization: 'Bearer ${publicToken}', 'content-type': 'application/json' },
    body: JSON.stringify({ token, session_expires_in: 60 }),
  });
  const body = await res.json();
  heading.textContent = res.ok ? (body.link_type === 'signup' ? 'Welcome, you are registered' : 'You are signed in') : 'This link did not work';
  out.textContent = JSON.stringify(body, null, 2);
  history.replaceState(null, '', location.pathname);
}
</script>
</body>
</html>
`;
