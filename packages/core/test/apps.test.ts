import { memoryStorage } from '@latchkey/memory';
import { describe, expect, it, vi } from 'vitest';
import { appService } from '../src/apps/service.js';
import { keyedHasher } from '../src/crypto/keyed-hash.js';
import { createKernel, type Kernel } from '../src/kernel.js';
import { systemRandom } from '../src/ports/random.js';
import { manualClock, TEST_SECRET, testApp, testLatchkey } from './helpers.js';

/** The App service on memory storage, with the API-key hashes it computes recorded. */
function keyedApps() {
  const clock = manualClock();
  const storage = memoryStorage();
  const hashed: string[] = [];
  const base = keyedHasher(TEST_SECRET);
  const k = createKernel({
    storage,
    clock,
    random: systemRandom,
    hasher: {
      hash: (purpose, value) => {
        if (purpose === 'api_key') hashed.push(value);
        return base.hash(purpose, value);
      },
    },
    vault: {} as Kernel['vault'],
    sender: {} as Kernel['sender'],
    rateLimiter: {} as Kernel['rateLimiter'],
    logger: {} as Kernel['logger'],
    emit: async () => {},
  });
  return { apps: appService(k), storage, hashed, clock };
}

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

  it('remembers a presented key without hashing it again, for as long as the answer stands', async () => {
    const { apps, hashed, clock } = keyedApps();
    const { app_id, secret_key } = await apps.create({ name: 'Memo' });
    const unknown = `sk_${'x'.repeat(40)}`;
    hashed.length = 0;
    for (let i = 0; i < 3; i++) {
      expect((await apps.authenticateKey(secret_key))?.app.id).toBe(app_id);
      expect(await apps.authenticateKey(unknown)).toBeNull();
    }
    expect(hashed).toEqual([secret_key, unknown]);
    // The answer is looked up (and the key hashed) again once it may be stale.
    clock.advance(5);
    expect((await apps.authenticateKey(secret_key))?.app.id).toBe(app_id);
    expect(hashed).toEqual([secret_key, unknown, secret_key]);
    // Rotation without grace: the remembered key stops at once.
    const rotated = await apps.rotateSecretKey(app_id);
    expect(await apps.authenticateKey(secret_key)).toBeNull();
    expect((await apps.authenticateKey(rotated.secret_key))?.kind).toBe('secret');
  });

  it('shares one lookup between requests arriving together, and remembers no failed lookup', async () => {
    const { apps, storage } = keyedApps();
    const { app_id, public_token } = await apps.create({ name: 'Herd' });
    const lookups = vi.spyOn(storage.apps, 'findByKeyHash');
    const answers = await Promise.all(Array.from({ length: 50 }, () => apps.authenticateKey(public_token)));
    expect(answers.every((a) => a?.app.id === app_id && a.kind === 'public')).toBe(true);
    expect(lookups).toHaveBeenCalledTimes(1);
    const other = `pk_${'y'.repeat(40)}`;
    lookups.mockRejectedValueOnce(new Error('storage down'));
    await expect(apps.authenticateKey(other)).rejects.toThrow('storage down');
    expect(await apps.authenticateKey(other)).toBeNull();
    expect(lookups).toHaveBeenCalledTimes(3);
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
