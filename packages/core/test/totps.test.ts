import * as jsqrModule from 'jsqr';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { matchingStep } from '../src/index.js';
import { appWithSettings, expectErrorShape, testApp } from './helpers.js';
import { base32Decode, oracleCode } from './totp-oracle.js';

// jsqr is CommonJS; its default export arrives one level deeper or not, by loader.
type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQR: Decode = (jsqrModule as any).default?.default ?? (jsqrModule as any).default;

function decodeQr(dataUri: string): string {
  expect(dataUri.startsWith('data:image/png;base64,')).toBe(true);
  const png = PNG.sync.read(Buffer.from(dataUri.split(',')[1]!, 'base64'));
  const result = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  if (!result) throw new Error('no QR code found in the image');
  return result.data;
}

async function setup(settings: Record<string, unknown> = {}) {
  const { latchkey, clock, t } = await appWithSettings(settings);
  const user = await t.call('POST', '/v1/auth/users', { email: 'totp.user@example.com' });
  const now = () => Math.floor(clock.now() / 1000);
  return { t, clock, latchkey, user_id: user.body.user_id as string, now };
}

async function activeTotp(settings: Record<string, unknown> = {}) {
  const s = await setup(settings);
  const created = await s.t.call('POST', '/v1/auth/totps/create', { user_id: s.user_id });
  const secret = base32Decode(created.body.secret);
  const verify = await s.t.call('POST', '/v1/auth/totps/verify', {
    user_id: s.user_id,
    totp_code: oracleCode(secret, s.now()),
  });
  expect(verify.status).toBe(200);
  return { ...s, created, secret };
}

describe('TOTP over HTTP', () => {
  it('creates a TOTP whose QR code carries the secret, issuer and label; activates; authenticates into a session', async () => {
    const { t, user_id, now } = await setup();
    const created = await t.call('POST', '/v1/auth/totps/create', { user_id, expires_in: '10' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      user_id,
      totp_id: expect.stringMatching(/^totp_/),
      secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
    });
    expect(created.body.recovery_codes).toHaveLength(10);
    expect(new Set(created.body.recovery_codes).size).toBe(10);
    const uri = new URL(decodeQr(created.body.qr_base64));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Test App:totp.user@example.com');
    expect(uri.searchParams.get('secret')).toBe(created.body.secret);
    expect(uri.searchParams.get('issuer')).toBe('Test App');
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');

    const secret = base32Decode(created.body.secret);
    const pendingAuth = await t.call('POST', '/v1/auth/totps/authenticate', {
      user_id,
      totp_code: oracleCode(secret, now()),
    });
    expect(pendingAuth.status).toBe(404);
    expect(expectErrorShape(pendingAuth).error_type).toBe('totp_not_found');
    const verify = await t.call('POST', '/v1/auth/totps/verify', {
      user_id,
      totp_code: oracleCode(secret, now()),
    });
    expect(verify.body).toEqual({ user_id, totp_id: created.body.totp_id, status: 'active' });
    const user = await t.call('GET', `/v1/auth/users/${user_id}`);
    expect(user.body.totps).toEqual([{ totp_id: created.body.totp_id, verified: true }]);
    // The verifying code's step is used: the next authenticate needs the next step.
    const sameStep = await t.call('POST', '/v1/auth/totps/authenticate', {
      user_id,
      totp_code: oracleCode(secret, now()),
    });
    expect(expectErrorShape(sameStep).error_type).toBe('totp_code_used');
    const auth = await t.call('POST', '/v1/auth/totps/authenticate', {
      user_id,
      totp_code: oracleCode(secret, now() + 30),
      session_expires_in: 60,
    });
    expect(auth.status).toBe(200);
    expect(auth.body.session.factors[0]).toMatchObject({
      type: 'totp',
      method: { method_type: 'totp', totp_id: created.body.totp_id },
    });
    expect(auth.body.session_token).toBeDefined();
  });

  it('refuses a second TOTP while one is active, and a pending one after its window', async () => {
    const { t, user_id, clock, now } = await setup();
    const created = await t.call('POST', '/v1/auth/totps/create', { user_id, expires_in: 5 });
    clock.advance(5 * 60);
    const late = await t.call('POST', '/v1/auth/totps/verify', {
      user_id,
      totp_code: oracleCode(base32Decode(created.body.secret), now()),
    });
    expect(late.status).toBe(401);
    expect(expectErrorShape(late).error_type).toBe('totp_expired');
    const again = await t.call('POST', '/v1/auth/totps/create', { user_id });
    await t.call('POST', '/v1/auth/totps/verify', {
      user_id,
      totp_code: oracleCode(base32Decode(again.body.secret), now()),
    });
    const third = await t.call('POST', '/v1/auth/totps/create', { user_id });
    expect(third.status).toBe(409);
    expect(expectErrorShape(third).error_type).toBe('totp_already_active');
  });

  it('keeps expires_in within 5–2160 minutes', async () => {
    const { t, user_id } = await setup();
    for (const expires_in of [4, 2161, '0', 'soon', 7.5]) {
      const res = await t.call('POST', '/v1/auth/totps/create', { user_id, expires_in });
      expect(res.status, String(expires_in)).toBe(400);
      expect(expectErrorShape(res).error_field).toBe('expires_in');
    }
    expect((await t.call('POST', '/v1/auth/totps/create', { user_id, expires_in: 2160 })).status).toBe(200);
  });

  it('accepts the current step and one either side, nothing further', async () => {
    const { t, user_id, secret, clock } = await activeTotp();
    clock.advance(300);
    const at = Math.floor(clock.now() / 1000);
    expect(
      (
        await t.call('POST', '/v1/auth/totps/authenticate', {
          user_id,
          totp_code: oracleCode(secret, at - 30),
        })
      ).status,
    ).toBe(200);
    expect(
      (await t.call('POST', '/v1/auth/totps/authenticate', { user_id, totp_code: oracleCode(secret, at) }))
        .status,
    ).toBe(200);
    expect(
      (
        await t.call('POST', '/v1/auth/totps/authenticate', {
          user_id,
          totp_code: oracleCode(secret, at + 30),
        })
      ).status,
    ).toBe(200);
    const far = await t.call('POST', '/v1/auth/totps/authenticate', {
      user_id,
      totp_code: oracleCode(secret, at + 60),
    });
    expect(expectErrorShape(far).error_type).toBe('totp_code_invalid');
    clock.advance(300);
    const old = await t.call('POST', '/v1/auth/totps/authenticate', {
      user_id,
      totp_code: oracleCode(secret, Math.floor(clock.now() / 1000) - 60),
    });
    expect(expectErrorShape(old).error_type).toBe('totp_code_invalid');
  });

  it('refuses a replayed code and any earlier step', async () => {
    const { t, user_id, secret, clock } = await activeTotp();
    clock.advance(60);
    const code = oracleCode(secret, Math.floor(clock.now() / 1000));
    expect((await t.call('POST', '/v1/auth/totps/authenticate', { user_id, totp_code: code })).status).toBe(
      200,
    );
    const replay = await t.call('POST', '/v1/auth/totps/authenticate', { user_id, totp_code: code });
    expect(replay.status).toBe(401);
    expect(expectErrorShape(replay).error_type).toBe('totp_code_used');
    const earlier = await t.call('POST', '/v1/auth/totps/authenticate', {
      user_id,
      totp_code: oracleCode(secret, Math.floor(clock.now() / 1000) - 30),
    });
    expect(expectErrorShape(earlier).error_type).toBe('totp_code_used');
  });

  it('locks after 10 wrong codes for 15 minutes, then lifts', async () => {
    const { t, user_id, secret, clock } = await activeTotp();
    clock.advance(60);
    const wrong = (at: number) => String((Number(oracleCode(secret, at)) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 9; i++) {
      const res = await t.call('POST', '/v1/auth/totps/authenticate', {
        user_id,
        totp_code: wrong(Math.floor(clock.now() / 1000)),
      });
      expect(expectErrorShape(res).error_type).toBe('totp_code_invalid');
    }
    const tenth = await t.call('POST', '/v1/auth/totps/authenticate', {
      user_id,
      totp_code: '000000' === oracleCode(secret, Math.floor(clock.now() / 1000)) ? '111111' : '000000',
    });
    expect(tenth.status).toBe(429);
    expect(expectErrorShape(tenth).error_type).toBe('totp_locked');
    expect(Number(tenth.headers.get('retry-after'))).toBe(15 * 60);
    const right = await t.call('POST', '/v1/auth/totps/authenticate', {
      user_id,
      totp_code: oracleCode(secret, Math.floor(clock.now() / 1000)),
    });
    expect(right.status).toBe(429);
    clock.advance(15 * 60);
    const after = await t.call('POST', '/v1/auth/totps/authenticate', {
      user_id,
      totp_code: oracleCode(secret, Math.floor(clock.now() / 1000)),
    });
    expect(after.status).toBe(200);
  });

  it('honours a configured lock-out', async () => {
    const { t, user_id } = await activeTotp({ totp: { max_failures: 2, lockout_minutes: 1 } });
    await t.call('POST', '/v1/auth/totps/authenticate', { user_id, totp_code: 'abc' });
    const second = await t.call('POST', '/v1/auth/totps/authenticate', { user_id, totp_code: 'abc' });
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBe(60);
  });

  it('lets each recovery code sign in once', async () => {
    const { t, user_id, created } = await activeTotp();
    const [code] = created.body.recovery_codes as string[];
    const first = await t.call('POST', '/v1/auth/totps/recover', {
      user_id,
      recovery_code: code!.toUpperCase(),
      session_expires_in: 30,
    });
    expect(first.status).toBe(200);
    expect(first.body.session.factors[0].type).toBe('recovery_code');
    const again = await t.call('POST', '/v1/auth/totps/recover', { user_id, recovery_code: code });
    expect(again.status).toBe(401);
    expect(expectErrorShape(again).error_type).toBe('recovery_code_used');
    const wrong = await t.call('POST', '/v1/auth/totps/recover', { user_id, recovery_code: 'aaaaa-aaaaa' });
    expect(expectErrorShape(wrong).error_type).toBe('recovery_code_invalid');
    const second = await t.call('POST', '/v1/auth/totps/recover', {
      user_id,
      recovery_code: created.body.recovery_codes[1],
    });
    expect(second.status).toBe(200);
  });

  it('deletes a TOTP (404 for unknown or another App’s), after which it no longer authenticates', async () => {
    const { t, user_id, created, secret, clock, latchkey } = await activeTotp();
    const other = await testApp(latchkey);
    expect((await other.call('DELETE', `/v1/auth/users/totps/${created.body.totp_id}/delete`)).status).toBe(
      404,
    );
    const res = await t.call('DELETE', `/v1/auth/users/totps/${created.body.totp_id}/delete`);
    expect(res.body).toEqual({ message: expect.any(String), user_id });
    clock.advance(60);
    const auth = await t.call('POST', '/v1/auth/totps/authenticate', {
      user_id,
      totp_code: oracleCode(secret, Math.floor(clock.now() / 1000)),
    });
    expect(expectErrorShape(auth).error_type).toBe('totp_not_found');
    expect((await t.call('DELETE', `/v1/auth/users/totps/${created.body.totp_id}/delete`)).status).toBe(404);
    expect((await t.call('POST', '/v1/auth/totps/create', { user_id })).status).toBe(200);
  });

  it('keeps the secret sealed and recovery codes hashed at rest', async () => {
    const { t, created, latchkey } = await activeTotp();
    const record = await latchkey.storage.totps.get(t.app_id, created.body.totp_id);
    const dump = JSON.stringify(record);
    expect(record!.sealed_secret).toMatch(/^lkv1\./);
    expect(dump).not.toContain(created.body.secret);
    expect(dump).not.toContain(base32Decode(created.body.secret).toString('hex'));
    for (const code of created.body.recovery_codes) expect(dump).not.toContain(code);
  });
});

describe('RFC 6238 test vectors (SHA-1, 8 digits) through the code check', () => {
  const secret = new TextEncoder().encode('12345678901234567890');
  it.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ])('T=%i → %s', (seconds, code) => {
    expect(matchingStep(secret, code, seconds * 1000, { digits: 8, window: 0 })).toBe(
      Math.floor(seconds / 30),
    );
    expect(oracleCode(Buffer.from(secret), seconds, 8)).toBe(code);
    const wrong = String((Number(code) + 1) % 1e8).padStart(8, '0');
    expect(matchingStep(secret, wrong, seconds * 1000, { digits: 8, window: 0 })).toBeNull();
  });
});
