import type { AppKeys } from '@latchkey/core';
import { type Router as ExpressRouter, Router } from 'express';
import { clientPage } from './page-layout.js';

export const SSO_PAGE = '/sso';

/**
 * The page an organization's SSO sign-in lands on: it takes the callback's token out of the
 * address bar and spends it at `/v1/auth/sso/authenticate` with the public token, showing the
 * member it signed in (or the callback's error).
 */
export function ssoPage(keys: AppKeys): ExpressRouter {
  const router = Router();
  router.get(SSO_PAGE, (_req, res) => {
    res
      .type('html')
      .send(clientPage('Signing you in…', keys.public_token, '', landingScript(keys.public_token)));
  });
  return router;
}

const landingScript = (publicToken: string) => `const heading = document.querySelector('h1');
const query = new URLSearchParams(location.search);
history.replaceState(null, '', location.pathname);
if (query.get('error')) {
  heading.textContent = 'The sign-in did not work';
  show('failed', query.get('error') + ': ' + (query.get('error_description') ?? ''));
} else if (!query.get('token')) {
  heading.textContent = 'Nothing to sign in with';
  show('no-token', 'Start from your organization’s sign-in link.');
} else {
  const res = await fetch('/v1/auth/sso/authenticate', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + ${JSON.stringify(publicToken)}, 'content-type': 'application/json' },
    body: JSON.stringify({ token: query.get('token'), session_expires_in: 60 }),
  });
  const result = await res.json();
  if (!res.ok) {
    heading.textContent = 'The sign-in did not work';
    show('failed', result.status_code + ' ' + result.error_type + ': ' + result.error_message);
  } else {
    heading.textContent = result.member_created ? 'Welcome to your organization' : 'You are signed in';
    $('session-line').textContent = 'Signed in as ' + result.user_id + ' in ' + result.organization_id + '.';
    show(result.member_created ? 'provisioned' : 'signed-in', result);
  }
}`;
