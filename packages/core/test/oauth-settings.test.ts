import { describe, expect, it } from 'vitest';
import { expectErrorShape, testApp, testLatchkey } from './helpers.js';

/**
 * The guards around OAuth that need no provider answering: secrets in settings are write-only
 * (sealed at rest, shown by a hint, kept when left out, never written sealed by a caller), the
 * start takes only the public token in its URL, the callback takes only a form, and the
 * redirects carrying state or tokens are neither cached nor sent on as a Referer.
 */
const SECRET = 'gh-client-secret-0123456789-abcd';
// GitHub's endpoints are fixed, not discovered: a start needs no provider to answer.
const github = (extra: Record<string, unknown> = {}) => ({
  type: 'github',
  client_id: 'lk-client',
  base_url: 'http://127.0.0.1:9',
  ...extra,
});

async function oauthApp() {
  const { latchkey } = testLatchkey({
    oauth: { callbackUrl: 'http://latchkey.test/v1/auth/oauth/callback', allowInsecureIssuers: true },
  });
  const t = await testApp(latchkey);
  await latchkey.apps.patchSettings(t.app_id, {
    redirect_urls: {
      login: ['https://app.example.com/oauth'],
      signup: ['https://app.example.com/oauth'],
      default_login: 'https://app.example.com/oauth',
      default_signup: 'https://app.example.com/oauth',
    },
    oauth: { providers: { gh: github({ client_secret: SECRET }) } },
  });
  return t;
}

const stored = async (t: Awaited<ReturnType<typeof oauthApp>>) =>
  (await t.latchkey.apps.get(t.app_id)).settings.oauth.providers.gh as Record<string, unknown>;

describe('OAuth provider secrets in App settings', () => {
  it('are sealed at rest and shown only by a hint', async () => {
    const t = await oauthApp();
    const record = await stored(t);
    expect(record.client_secret).toBeUndefined();
    expect(record.client_secret_sealed).toEqual(expect.any(String));
    expect(JSON.stringify(record)).not.toContain(SECRET);
    const view = await t.call('GET', '/v1/app');
    expect(view.status).toBe(200);
    const shown = view.body.settings.oauth.providers.gh;
    expect(shown.client_secret_hint).toBe(SECRET.slice(-4));
    expect(shown.client_secret_sealed).toBeUndefined();
    expect(JSON.stringify(view.body)).not.toContain(SECRET);
  });

  it('are kept by a write that leaves them out, replaced by one that gives them', async () => {
    const t = await oauthApp();
    const first = (await stored(t)).client_secret_sealed;
    await t.latchkey.apps.patchSettings(t.app_id, {
      oauth: { providers: { gh: { scopes: ['read:user'] } } },
    });
    expect((await stored(t)).client_secret_sealed).toBe(first);
    const app = await t.latchkey.apps.get(t.app_id);
    await t.latchkey.apps.updateSettings(t.app_id, {
      ...app.settings,
      oauth: { providers: { gh: github() } },
    } as never);
    expect((await stored(t)).client_secret_sealed).toBe(first);
    await t.latchkey.apps.patchSettings(t.app_id, {
      oauth: { providers: { gh: { client_secret: 'another-secret-wxyz' } } },
    });
    const replaced = await stored(t);
    expect(replaced.client_secret_sealed).not.toBe(first);
    expect(replaced.client_secret_hint).toBe('wxyz');
  });

  it('refuse a sealed form written by the caller', async () => {
    const t = await oauthApp();
    const res = await t.call('PATCH', '/v1/app/settings', {
      oauth: { providers: { gh: { client_secret_sealed: 'v1.copied-from-elsewhere' } } },
    });
    expect(res.status).toBe(400);
    expect(expectErrorShape(res).error_field).toBe('oauth.providers.gh.client_secret_sealed');
  });
});

describe('OAuth start and callback requests', () => {
  type App = Awaited<ReturnType<typeof oauthApp>>;
  // The start route's token rides in its URL, and it answers with a redirect, not JSON.
  const start = (t: App, token: string) =>
    t.call('GET', `/v1/auth/oauth/gh/start?public_token=${token}`, undefined, null);
  const stateOf = (res: { headers: Headers }) =>
    new URL(res.headers.get('location')!).searchParams.get('state')!;

  it('start takes the public token in its URL, never the secret key', async () => {
    const t = await oauthApp();
    expect((await start(t, t.public_token)).status).toBe(302);
    const secret = await start(t, t.secret_key);
    expect(secret.status).toBe(401);
    expect(expectErrorShape(secret).error_type).toBe('unauthorized');
  });

  it('start and callback redirects are neither cached nor sent on as a Referer', async () => {
    const t = await oauthApp();
    const started = await start(t, t.public_token);
    expect(started.status).toBe(302);
    const callback = await t.call(
      'GET',
      `/v1/auth/oauth/callback?state=${stateOf(started)}&error=access_denied`,
      undefined,
      null,
    );
    expect(callback.status).toBe(302);
    for (const res of [started, callback]) {
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('the callback takes a form post, not JSON', async () => {
    const t = await oauthApp();
    const state = stateOf(await start(t, t.public_token));
    const json = await t.call('POST', '/v1/auth/oauth/callback', { state, error: 'access_denied' }, null);
    expect(json.status).toBe(415);
    const form = await t.latchkey.fetch(
      new Request('http://latchkey.test/v1/auth/oauth/callback', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ state, error: 'access_denied' }).toString(),
      }),
    );
    expect(form.status).toBe(303);
    expect(new URL(form.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
  });
});
