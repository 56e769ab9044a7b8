import { describe, expect, it } from 'vitest';
import { testApp, testLatchkey } from './helpers.js';

describe('App keys', () => {
  it('keeps a rotated key alive exactly for its grace period, even when cached', async () => {
    const { latchkey, clock } = testLatchkey();
    const t = await testApp(latchkey);
    const path = '/v1/auth/users/user_x';
    expect((await t.call('GET', path)).status).toBe(404);
    const rotated = await latchkey.apps.rotateSecretKey(t.app_id, { graceSeconds: 2 });
    expect((await t.call('GET', path)).status).toBe(404);
    expect((await t.call('GET', path, undefined, rotated.secret_key)).status).toBe(404);
    clock.advance(2);
    expect((await t.call('GET', path)).status).toBe(401);
    expect((await t.call('GET', path, undefined, rotated.secret_key)).status).toBe(404);
  });

  it('refuses a key used with the other prefix', async () => {
    const { latchkey } = testLatchkey();
    const t = await testApp(latchkey);
    const swapped = `pk_${t.secret_key.slice(3)}`;
    expect((await t.call('GET', '/v1/auth/sessions/jwks', undefined, swapped)).status).toBe(401);
  });

  it('validates settings and fills defaults for what is left out', async () => {
    const { latchkey } = testLatchkey();
    const { app } = await latchkey.apps.create({
      name: 'Settings',
      settings: { otp: { expires_in_minutes: 3 } },
    });
    expect(app.settings.otp).toEqual({
      expires_in_minutes: 3,
      max_attempts: 5,
      device_fingerprint_match: 'none',
    });
    expect(app.settings.rate_limits.per_destination).toEqual({ limit: 5, window_seconds: 600 });
    await expect(
      latchkey.apps.create({ name: 'Bad', settings: { otp: { expires_in_minutes: 61 } } }),
    ).rejects.toMatchObject({ errorType: 'invalid_field', field: 'settings.otp.expires_in_minutes' });
    await expect(latchkey.apps.create({ name: '' })).rejects.toMatchObject({ errorType: 'invalid_field' });
  });
});
