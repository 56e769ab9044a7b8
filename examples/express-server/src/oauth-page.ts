import type { AppKeys, Latchkey } from '@latchkey/core';
import { type Router as ExpressRouter, Router } from 'express';
import { clientPage } from './page-layout.js';

export const OAUTH_PAGE = '/oauth';
export const OAUTH_PROVIDERS_PATH = '/demo/oauth-providers';

/** How the sign-in page names each preset; an `oidc` provider is named by the App's id for it. */
const PRESET_LABELS: Record<string, string> = {
  google: 'Google',
  apple: 'Apple',
  microsoft: 'Microsoft',
  github: 'GitHub',
  discord: 'Discord',
};

/**
 * The OAuth side of the demo: the list of the demo App's providers for the sign-in page's buttons
 * (id, type and label: never a client id, secret or key), and the `/oauth` page the providers'
 * answers land on, which spends the token through @latchkey/client.
 */
export function oauthPages(latchkey: Latchkey, keys: AppKeys): ExpressRouter {
  const router = Router();
  router.get(OAUTH_PROVIDERS_PATH, async (_req, res) => {
    const { settings } = await latchkey.apps.get(keys.app_id);
    const providers = Object.entries(settings.oauth.providers).map(([id, provider]) => ({
      id,
      type: provider.type,
      label: PRESET_LABELS[provider.type] ?? id,
    }));
    res.set('cache-control', 'no-store').json({ providers });
  });
  router.get(OAUTH_PAGE, (_req, res) => {
    res.type('html').send(clientPage('Signing you in…', keys.public_token, '', landingScript));
  });
  return router;
}

/** The sign-in page's section: one button per provider, filled in by `oauthButtonsScript`. */
export const oauthButtonsBody = `<section><h2>Sign in with a provider</h2><div id="oauth-providers">No providers in the demo App's settings (see the README).</div></section>`;

// Both the start's redirects are this page on the origin the user is on (localhost or 127.0.0.1):
// the PKCE verifier waits in that origin's sessionStorage.
export const oauthButtonsScript = `fetch(${JSON.stringify(OAUTH_PROVIDERS_PATH)}).then((r) => r.json()).then(({ providers }) => {
  if (providers.length === 0) return;
  const box = $('oauth-providers');
  box.textContent = '';
  for (const provider of providers) {
    const button = document.createElement('button');
    button.id = 'oauth-' + provider.id;
    button.textContent = 'Sign in with ' + provider.label;
    button.addEventListener('click', async () => {
      show('working', 'Going to ' + provider.label + '…');
      try {
        const landing = location.origin + ${JSON.stringify(OAUTH_PAGE)};
        await lk.oauth.start(provider.id, { loginRedirectUrl: landing, signupRedirectUrl: landing });
      } catch (err) {
        show('failed', err.status + ' ' + err.error_type + ': ' + err.message);
      }
    });
    box.append(button, ' ');
  }
  box.dataset.ready = 'true';
});`;

const landingScript = `const heading = document.querySelector('h1');
show('working', 'Signing you in…');
try {
  const result = await lk.oauth.handleRedirect(undefined, { deviceFingerprint: { user_agent: navigator.userAgent } });
  if (result === null) {
    heading.textContent = 'Nothing to sign in with';
    show('no-token', 'Start from the sign-in page.');
  } else {
    heading.textContent = result.user_created ? 'Welcome, you are registered' : 'You are signed in';
    show(result.user_created ? 'registered' : 'signed-in', result);
  }
} catch (err) {
  heading.textContent = 'The sign-in did not work';
  show('failed', err.status + ' ' + err.error_type + ': ' + err.message);
}`;
