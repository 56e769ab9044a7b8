import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppKeys, Latchkey } from '@latchkey/core';
import { OAUTH_PAGE } from './oauth-page.js';
import { MAGIC_LINK_PAGE, RESET_PASSWORD_PAGE } from './pages.js';
import { readJsonWhenComplete } from './secrets.js';
import { SSO_PAGE } from './sso-page.js';

/**
 * The settings that make every flow of the example work on localhost out of the box: magic
 * links and password reset links lead to the server's own pages, OAuth sign-ins may land on its
 * `/oauth` page (the providers are the operator's to add), the sign-in page may sign up
 * by password with the public token, and `localhost` (any port) is a WebAuthn relying party.
 * Applied at every start, since the port may change.
 */
export async function configureDemoApp(latchkey: Latchkey, appId: string, serverUrl: string): Promise<void> {
  const app = await latchkey.apps.get(appId);
  const page = `${serverUrl}${MAGIC_LINK_PAGE}`;
  const reset = `${serverUrl}${RESET_PASSWORD_PAGE}`;
  // OAuth lands on the origin the sign-in started from (its PKCE verifier is in that origin's
  // sessionStorage): the server's own, and localhost, where passkeys are tried.
  const oauth = [...new Set([serverUrl, `http://localhost:${new URL(serverUrl).port}`])].map(
    (origin) => `${origin}${OAUTH_PAGE}`,
  );
  // A merge patch of these fields alone: whatever else the operator set (OAuth providers, whose
  // secrets are write-only) stays as it is.
  const sso = `${serverUrl}${SSO_PAGE}`;
  await latchkey.apps.patchSettings(appId, {
    redirect_urls: {
      login: [page, ...oauth, sso],
      signup: [page, ...oauth],
      default_login: page,
      default_signup: page,
      reset_password: [reset],
      default_reset_password: reset,
    },
    passwords: { public_signup: true },
    webauthn: {
      allowed_domains: [...new Set([...app.settings.webauthn.allowed_domains, 'localhost'])],
    },
  });
}

/**
 * The demo App: created on first start, its keys kept in `demo-app.json` (the only place they
 * exist; the database holds hashes). A later start reuses it while its App still exists.
 */
export async function loadOrCreateDemoApp(
  latchkey: Latchkey,
  dataDir: string,
): Promise<{ keys: AppKeys; created: boolean }> {
  const file = path.join(dataDir, 'demo-app.json');
  const existing = await readJsonWhenComplete<AppKeys>(file).catch(() => null);
  if (existing && (await latchkey.storage.apps.get(existing.app_id)))
    return { keys: existing, created: false };
  const { app_id, secret_key, public_token } = await latchkey.apps.create({ name: 'Latchkey demo' });
  const keys = { app_id, secret_key, public_token };
  await writeFile(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  return { keys, created: true };
}
