import { startOidcProvider } from '../../packages/core/test/oauth-peers/oidc-provider-server.js';
import type { Target } from './measure.js';

type Call = (method: string, route: string, body?: unknown, key?: string) => Promise<Record<string, string>>;

interface Context {
  url: string;
  publicToken: string;
  call: Call;
}

export const OAUTH_AUTHENTICATE_ROW = 'POST oauth/authenticate';

/** A redirect's Location, refusing anything else: every step of the preparation is checked. */
async function redirectOf(url: string | URL): Promise<URL> {
  const res = await fetch(url, { redirect: 'manual' });
  const location = res.headers.get('location');
  if (res.status < 300 || res.status > 399 || !location)
    throw new Error(`${url} → ${res.status} ${await res.text()}`);
  return new URL(location, url);
}

/**
 * `oauth/authenticate` on single-use tokens, each from a whole sign-in first made against panva's
 * oidc-provider on a loopback port (start, the provider's login and consent, the callback with
 * its token exchange and ID token checks): the row times only what the App's page calls.
 */
export async function oauthTargets(
  ctx: Context,
  count: number,
): Promise<{ targets: Target[]; close: () => Promise<void> }> {
  const clientSecret = 'bench-oauth-client-secret-0123456789';
  const op = await startOidcProvider({
    clients: [
      {
        client_id: 'bench',
        client_secret: clientSecret,
        redirect_uris: [`${ctx.url}/v1/auth/oauth/callback`],
      },
    ],
    claimsInIdToken: true,
  });
  await ctx.call('PATCH', '/v1/app/settings', {
    oauth: {
      providers: {
        bench: { type: 'oidc', issuer: op.issuer, client_id: 'bench', client_secret: clientSecret },
      },
    },
  });
  const tokens: string[] = [];
  const run = Date.now().toString(36);
  for (let i = 0; i < count; i += 10)
    await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, async (_, j) => {
        const account = `bench-${run}-${i + j}`;
        op.accounts[account] = { email: `bench.oauth.${run}.${i + j}@example.com`, email_verified: true };
        const start = new URL(`${ctx.url}/v1/auth/oauth/bench/start`);
        start.searchParams.set('public_token', ctx.publicToken);
        const back = await op.signInAs(await redirectOf(start), account);
        const landing = await redirectOf(back);
        const token = landing.searchParams.get('token');
        if (!token) throw new Error(`the callback gave no token: ${landing}`);
        tokens.push(token);
      }),
    );
  let next = 0;
  return {
    targets: [
      {
        name: `${OAUTH_AUTHENTICATE_ROW} (${tokens.length} single-use tokens)`,
        url: `${ctx.url}/v1/auth/oauth/authenticate`,
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.publicToken}` },
        nextBody: () => ({ token: tokens[next++ % tokens.length], session_expires_in: 60 }),
        amount: tokens.length,
      },
    ],
    close: () => op.close(),
  };
}
