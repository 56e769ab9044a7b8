import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey } from '../src/index.js';
import {
  capturingSender,
  expectErrorShape,
  TEST_SECRET,
  type TestApp,
  testApp,
  testLatchkey,
} from './helpers.js';
import { storageBackends } from './storage-backends.js';

const send = (t: Awaited<ReturnType<typeof testApp>>, url: string) =>
  t.call(
    'POST',
    '/v1/auth/magic_links/email/login_or_create',
    { email: 'settings@example.com', login_redirect_url: url, signup_redirect_url: url },
    t.public_token,
  );

describe('App settings over HTTP', () => {
  it('reads the App without its key hashes', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const res = await t.call('GET', '/v1/app');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ app_id: t.app_id, name: 'Test App' });
    expect(res.body.settings.otp.expires_in_minutes).toBe(10);
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/hash|sk_|pk_/);
  });

  it('a newly allowed redirect URL works at once; one left out is still refused', async () => {
    const t = await testApp(testLatchkey().latchkey);
    expect(expectErrorShape(await send(t, 'https://a.example/cb')).error_type).toBe(
      'redirect_url_not_allowed',
    );
    const patched = await t.call('PATCH', '/v1/app/settings', {
      redirect_urls: { login: ['https://a.example/cb'], signup: ['https://a.example/cb'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.settings.redirect_urls.login).toEqual(['https://a.example/cb']);
    expect((await send(t, 'https://a.example/cb')).status).toBe(200);
    expect(expectErrorShape(await send(t, 'https://b.example/cb')).error_type).toBe(
      'redirect_url_not_allowed',
    );
  });

  it('changes only the given fields, and null resets a field to its default', async () => {
    const t = await testApp(testLatchkey().latchkey);
    await t.call('PATCH', '/v1/app/settings', { otp: { expires_in_minutes: 3, max_attempts: 7 } });
    const one = await t.call('PATCH', '/v1/app/settings', { otp: { max_attempts: 2 } });
    expect(one.body.settings.otp).toMatchObject({ expires_in_minutes: 3, max_attempts: 2 });
    const reset = await t.call('PATCH', '/v1/app/settings', { otp: { expires_in_minutes: null } });
    expect(reset.body.settings.otp).toMatchObject({ expires_in_minutes: 10, max_attempts: 2 });
    expect((await t.latchkey.apps.get(t.app_id)).settings.otp.max_attempts).toBe(2);
  });

  it('refuses unknown and invalid settings naming the field, and changes nothing', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const before = (await t.call('GET', '/v1/app')).body;
    const cases: Array<[unknown, string, string]> = [
      [{ sesions: { jwt_lifetime_seconds: 60 } }, 'unknown_field', 'sesions'],
      [{ sessions: { jwt_lifetime: 60 } }, 'unknown_field', 'sessions.jwt_lifetime'],
      [{ otp: { expires_in_minutes: 61 } }, 'invalid_field', 'otp.expires_in_minutes'],
      [{ redirect_urls: { login: ['not a url'] } }, 'invalid_field', 'redirect_urls.login.0'],
      [
        { rate_limits: { routes: { 'POST /v1/x': { limit: 0, window_seconds: 1 } } } },
        'invalid_field',
        'rate_limits.routes.POST /v1/x.limit',
      ],
    ];
    for (const [patch, type, field] of cases) {
      const err = expectErrorShape(await t.call('PATCH', '/v1/app/settings', patch));
      expect([err.status_code, err.error_type, err.error_field]).toEqual([400, type, field]);
    }
    for (const body of [[], 'x', 3]) {
      expect((await t.call('PATCH', '/v1/app/settings', body)).status).toBe(400);
    }
    expect((await t.call('GET', '/v1/app')).body).toEqual(before);
  });

  it('needs the secret key, and each App sees only itself', async () => {
    const { latchkey } = testLatchkey();
    const a = await testApp(latchkey);
    const b = await testApp(latchkey);
    expect(expectErrorShape(await a.call('GET', '/v1/app', undefined, a.public_token)).status_code).toBe(403);
    expect((await a.call('PATCH', '/v1/app/settings', { otp: {} }, a.public_token)).status).toBe(403);
    expect((await a.call('GET', '/v1/app', undefined, null)).status).toBe(401);
    await b.call('PATCH', '/v1/app/settings', { otp: { max_attempts: 9 } });
    expect((await a.call('GET', '/v1/app')).body.settings.otp.max_attempts).toBe(5);
    expect((await b.call('GET', '/v1/app')).body).toMatchObject({ app_id: b.app_id });
  });

  it('exposes the same patch in code, and destructured service methods work', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const { patchSettings, rotateSecretKey } = t.latchkey.apps;
    const app = await patchSettings(t.app_id, { passwords: { min_score: 4 } });
    expect(app.settings.passwords.min_score).toBe(4);
    const { secret_key } = await rotateSecretKey(t.app_id);
    expect((await t.call('GET', '/v1/app', undefined, secret_key)).status).toBe(200);
  });
});

/** The patch is written through the storage adapter and read back by the next request on it. */
describe.each(storageBackends())('App settings over HTTP on $name', (backend) => {
  let t: TestApp;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    t = await testApp(
      createLatchkey({ storage: opened.storage, secret: TEST_SECRET, sender: capturingSender() }),
    );
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('a newly allowed redirect URL works; one left out is still refused; a bad patch changes nothing', async () => {
    expect(expectErrorShape(await send(t, 'https://a.example/cb')).error_type).toBe(
      'redirect_url_not_allowed',
    );
    const patch = { redirect_urls: { login: ['https://a.example/cb'], signup: ['https://a.example/cb'] } };
    expect((await t.call('PATCH', '/v1/app/settings', patch)).status).toBe(200);
    expect((await send(t, 'https://a.example/cb')).status).toBe(200);
    expect(expectErrorShape(await send(t, 'https://b.example/cb')).error_type).toBe(
      'redirect_url_not_allowed',
    );
    const bad = await t.call('PATCH', '/v1/app/settings', {
      redirect_urls: { login: ['https://b.example/cb', 'nope'] },
    });
    expect(expectErrorShape(bad).error_field).toBe('redirect_urls.login.1');
    expect((await t.latchkey.apps.get(t.app_id)).settings.redirect_urls.login).toEqual([
      'https://a.example/cb',
    ]);
  });
});
