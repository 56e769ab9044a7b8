import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { fingerprintMatches } from '../src/otps/service.js';
import { appWithSettings, expectErrorShape, testApp } from './helpers.js';

const setup = appWithSettings;

describe('OTP send and login_or_create', () => {
  it('creates the user by email, sends a 6-digit code and reports the method', async () => {
    const { t, sender } = await setup();
    const res = await t.call(
      'POST',
      '/v1/auth/otps/email/login_or_create',
      { email: 'New@Example.com' },
      t.public_token,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      method_id: res.body.email_id,
      email_id: expect.stringMatching(/^email_/),
      user_id: expect.stringMatching(/^user_/),
      user_created: true,
    });
    expect(sender.sent).toHaveLength(1);
    const [message] = sender.sent;
    expect(message).toMatchObject({ channel: 'email', kind: 'otp', to: 'new@example.com', app_id: t.app_id });
    expect(message!.code).toMatch(/^\d{6}$/);
    expect(message!.text).toContain(message!.code);
    expect(message!.subject).toContain('Test App');
    const again = await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: 'new@example.com' });
    expect(again.body).toMatchObject({
      user_id: res.body.user_id,
      email_id: res.body.email_id,
      user_created: false,
    });
  });

  it('sends by SMS in E.164 and uses the App’s message text', async () => {
    const { t, sender } = await setup({
      messages: { otp_sms: 'Code {{code}} for {{app_name}} ({{minutes}} min)' },
    });
    const res = await t.call('POST', '/v1/auth/otps/sms/login_or_create', {
      phone_number: '+1 (415) 555-0134',
      expiration_minutes: 3,
    });
    expect(res.status).toBe(200);
    expect(res.body.phone_number_id).toBe(res.body.method_id);
    const code = sender.lastCode('+14155550134');
    expect(sender.sent[0]!.text).toBe(`Code ${code} for Test App (3 min)`);
  });

  it('send needs an existing contact, or user_id with the secret key', async () => {
    const { t } = await setup();
    const unknown = await t.call('POST', '/v1/auth/otps/email/send', { email: 'nobody@example.com' });
    expect(unknown.status).toBe(404);
    expect(expectErrorShape(unknown).error_type).toBe('email_not_found');
    const user = await t.call('POST', '/v1/auth/users', { email: 'owner@example.com' });
    const byPublic = await t.call(
      'POST',
      '/v1/auth/otps/sms/send',
      { phone_number: '+14155550111', user_id: user.body.user_id },
      t.public_token,
    );
    expect(byPublic.status).toBe(403);
    const added = await t.call('POST', '/v1/auth/otps/sms/send', {
      phone_number: '+14155550111',
      user_id: user.body.user_id,
    });
    expect(added.status).toBe(200);
    expect(added.body.user_id).toBe(user.body.user_id);
    const other = await t.call('POST', '/v1/auth/users', {});
    const stolen = await t.call('POST', '/v1/auth/otps/sms/send', {
      phone_number: '+14155550111',
      user_id: other.body.user_id,
    });
    expect(stolen.status).toBe(409);
    expect(expectErrorShape(stolen).error_type).toBe('phone_number_belongs_to_another_user');
    const ghost = await t.call('POST', '/v1/auth/otps/email/send', {
      email: 'x@example.com',
      user_id: 'user_ghost',
    });
    expect(ghost.status).toBe(404);
    expect(expectErrorShape(ghost).error_type).toBe('user_not_found');
  });

  it('keeps expiration_minutes within 1–60', async () => {
    const { t } = await setup();
    for (const expiration_minutes of [0, 61, 1.5]) {
      const res = await t.call('POST', '/v1/auth/otps/email/login_or_create', {
        email: 'a@example.com',
        expiration_minutes,
      });
      expect(res.status).toBe(400);
      expect(expectErrorShape(res)).toMatchObject({
        error_type: 'invalid_field',
        error_field: 'expiration_minutes',
      });
    }
  });

  it('creates one user for concurrent login_or_create of one new address', async () => {
    const { t } = await setup({ rate_limits: { per_destination: { limit: 100 } } });
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.call('POST', '/v1/auth/otps/email/login_or_create', { email: 'race@example.com' }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body.user_id)).size).toBe(1);
    expect(results.filter((r) => r.body.user_created)).toHaveLength(1);
  });
});

describe('rate limits on sending', () => {
  it('limits messages per destination with 429 and Retry-After, then lets them through in the next window', async () => {
    const { t, clock } = await setup({ rate_limits: { per_destination: { limit: 3, window_seconds: 60 } } });
    for (let i = 0; i < 3; i++) {
      expect(
        (await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: 'rl@example.com' })).status,
      ).toBe(200);
    }
    const limited = await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: 'rl@example.com' });
    expect(limited.status).toBe(429);
    expect(expectErrorShape(limited).error_type).toBe('rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another destination is not limited by this one.
    expect(
      (await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: 'other@example.com' })).status,
    ).toBe(200);
    clock.advance(retryAfter);
    expect(
      (await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: 'rl@example.com' })).status,
    ).toBe(200);
  });

  it('limits messages per App', async () => {
    const { t } = await setup({ rate_limits: { per_app: { limit: 2, window_seconds: 3600 } } });
    expect(
      (await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: 'a1@example.com' })).status,
    ).toBe(200);
    expect(
      (await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: 'a2@example.com' })).status,
    ).toBe(200);
    const limited = await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: 'a3@example.com' });
    expect(limited.status).toBe(429);
  });

  it('checks the limits before creating anything: a refused login_or_create or send writes no record', async () => {
    const { t, latchkey, sender } = await setup({
      rate_limits: { per_app: { limit: 2, window_seconds: 3600 } },
    });
    const answers = [];
    for (let i = 0; i < 5; i++)
      answers.push(
        (await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: `cap${i}@example.com` }))
          .status,
      );
    expect(answers).toEqual([200, 200, 429, 429, 429]);
    expect(sender.sent).toHaveLength(2);
    // The refused addresses have no contact, hence no user (a user is created with its contact).
    for (let i = 0; i < 5; i++)
      expect(Boolean(await latchkey.storage.emails.findByAddress(t.app_id, `cap${i}@example.com`))).toBe(
        i < 2,
      );
    // send with user_id adds the number to the user only when the send is allowed.
    const user = await t.call('POST', '/v1/auth/users', {});
    const refused = await t.call('POST', '/v1/auth/otps/sms/send', {
      phone_number: '+14155550188',
      user_id: user.body.user_id,
    });
    expect(refused.status).toBe(429);
    expect(await latchkey.storage.phoneNumbers.findByAddress(t.app_id, '+14155550188')).toBeNull();
  });
});

describe('SMS destinations (SMS pumping)', () => {
  it('refuses premium-rate and shared-cost numbers by default, with no user created and nothing sent', async () => {
    const { t, latchkey, sender } = await setup();
    for (const phone_number of ['+449012345678', '+19005551234', '+33810123456']) {
      const res = await t.call('POST', '/v1/auth/otps/sms/login_or_create', { phone_number }, t.public_token);
      expect(res.status).toBe(400);
      expect(expectErrorShape(res).error_type).toBe('phone_number_type_not_allowed');
      expect(await latchkey.storage.phoneNumbers.findByAddress(t.app_id, phone_number)).toBeNull();
    }
    expect(sender.sent).toHaveLength(0);
    // A mobile number goes through.
    expect(
      (await t.call('POST', '/v1/auth/otps/sms/login_or_create', { phone_number: '+447400123456' })).status,
    ).toBe(200);
  });

  it('sends only to the allowed calling codes when the App lists them, and to the number types it allows', async () => {
    const { t, latchkey, sender } = await setup({
      sms: { allowed_calling_codes: ['1'], refused_number_types: ['toll_free'] },
    });
    const uk = await t.call('POST', '/v1/auth/otps/sms/login_or_create', { phone_number: '+447400123456' });
    expect(uk.status).toBe(400);
    expect(expectErrorShape(uk).error_type).toBe('sms_country_not_allowed');
    expect(await latchkey.storage.phoneNumbers.findByAddress(t.app_id, '+447400123456')).toBeNull();
    const tollFree = await t.call('POST', '/v1/auth/otps/sms/login_or_create', {
      phone_number: '+18005550100',
    });
    expect(expectErrorShape(tollFree).error_type).toBe('phone_number_type_not_allowed');
    // Premium-rate is no longer refused once the App's list leaves it out (its choice).
    expect(
      (await t.call('POST', '/v1/auth/otps/sms/login_or_create', { phone_number: '+19005551234' })).status,
    ).toBe(200);
    expect(
      (await t.call('POST', '/v1/auth/otps/sms/login_or_create', { phone_number: '+14155550100' })).status,
    ).toBe(200);
    expect(sender.sent.map((m) => m.to)).toEqual(['+19005551234', '+14155550100']);
  });

  it('caps the SMS the App sends at rate_limits.per_app_sms (100 per hour by default), emails apart', async () => {
    const { t } = await setup();
    const patched = await t.call('GET', '/v1/app');
    expect(patched.body.settings.rate_limits.per_app_sms).toEqual({ limit: 100, window_seconds: 3600 });
    expect(patched.body.settings.sms).toEqual({
      allowed_calling_codes: [],
      refused_number_types: ['premium_rate', 'shared_cost'],
    });
    const set = await t.call('PATCH', '/v1/app/settings', { rate_limits: { per_app_sms: { limit: 3 } } });
    expect(set.status).toBe(200);
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (await t.call('POST', '/v1/auth/otps/sms/login_or_create', { phone_number: `+1415555011${i}` }))
          .status,
      );
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(
      (await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: 'still@example.com' })).status,
    ).toBe(200);
    const bad = await t.call('PATCH', '/v1/app/settings', { sms: { refused_number_types: ['premium'] } });
    expect(bad.status).toBe(400);
    const badCode = await t.call('PATCH', '/v1/app/settings', { sms: { allowed_calling_codes: ['+44'] } });
    expect(badCode.status).toBe(400);
  });
});

describe('OTP verify', () => {
  async function sent(settings: Record<string, unknown> = {}, body: Record<string, unknown> = {}) {
    const s = await setup(settings);
    const res = await s.t.call('POST', '/v1/auth/otps/email/login_or_create', {
      email: 'v@example.com',
      ...body,
    });
    return {
      ...s,
      method_id: res.body.method_id as string,
      user_id: res.body.user_id as string,
      code: s.sender.lastCode('v@example.com'),
    };
  }

  it('verifies once, marks the email verified, and creates no session without session_expires_in', async () => {
    const { t, method_id, user_id, code } = await sent();
    const res = await t.call('POST', '/v1/auth/otps/verify', { method_id, otp: code }, t.public_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ method_id, method_type: 'email', user_id });
    const user = await t.call('GET', `/v1/auth/users/${user_id}`);
    expect(user.body.emails[0].verified).toBe(true);
    const replay = await t.call('POST', '/v1/auth/otps/verify', { method_id, otp: code });
    expect(replay.status).toBe(401);
    expect(expectErrorShape(replay).error_type).toBe('otp_code_used');
  });

  it('tells a wrong code from an expired one', async () => {
    const { t, clock, method_id, code } = await sent();
    const wrong = await t.call('POST', '/v1/auth/otps/verify', {
      method_id,
      otp: code === '000000' ? '111111' : '000000',
    });
    expect(wrong.status).toBe(401);
    expect(expectErrorShape(wrong).error_type).toBe('otp_code_invalid');
    clock.advance(10 * 60);
    const expired = await t.call('POST', '/v1/auth/otps/verify', { method_id, otp: code });
    expect(expired.status).toBe(401);
    expect(expectErrorShape(expired).error_type).toBe('otp_code_expired');
  });

  it('lives exactly as long as asked', async () => {
    const { t, clock, method_id, code } = await sent({}, { expiration_minutes: 2 });
    clock.advance(119);
    expect((await t.call('POST', '/v1/auth/otps/verify', { method_id, otp: code })).status).toBe(200);
    const late = await sent({}, { expiration_minutes: 2 });
    late.clock.advance(120);
    expect(
      (await late.t.call('POST', '/v1/auth/otps/verify', { method_id: late.method_id, otp: late.code })).body
        .error_type,
    ).toBe('otp_code_expired');
  });

  it('kills a code after 5 wrong attempts, even for the right code after', async () => {
    const { t, method_id, code } = await sent();
    const wrongCode = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 5; i++) {
      expect(
        (await t.call('POST', '/v1/auth/otps/verify', { method_id, otp: wrongCode })).body.error_type,
      ).toBe('otp_code_invalid');
    }
    const dead = await t.call('POST', '/v1/auth/otps/verify', { method_id, otp: code });
    expect(dead.status).toBe(401);
    expect(expectErrorShape(dead).error_type).toBe('otp_code_too_many_attempts');
  });

  it('lets a new send supersede the previous code', async () => {
    const { t, sender, method_id, code: first } = await sent();
    await t.call('POST', '/v1/auth/otps/email/send', { email: 'v@example.com' });
    const second = sender.lastCode('v@example.com');
    if (first !== second) {
      expect((await t.call('POST', '/v1/auth/otps/verify', { method_id, otp: first })).body.error_type).toBe(
        'otp_code_invalid',
      );
    }
    expect((await t.call('POST', '/v1/auth/otps/verify', { method_id, otp: second })).status).toBe(200);
  });

  it('answers an unknown method and another App’s method the same way', async () => {
    const { t, latchkey, method_id, code } = await sent();
    const other = await testApp(latchkey);
    const foreign = await other.call('POST', '/v1/auth/otps/verify', { method_id, otp: code });
    const unknown = await t.call('POST', '/v1/auth/otps/verify', {
      method_id: 'email_01jxxxxxxxxxxxxxxxxxxxxxxx',
      otp: code,
    });
    const garbage = await t.call('POST', '/v1/auth/otps/verify', { method_id: 'nonsense', otp: code });
    for (const res of [foreign, unknown, garbage]) {
      expect(res.status).toBe(404);
      expect(expectErrorShape(res).error_type).toBe('otp_code_not_found');
      expect(res.body.error_message).toBe(foreign.body.error_message);
    }
    // The foreign attempt did not burn the code for its real App.
    expect((await t.call('POST', '/v1/auth/otps/verify', { method_id, otp: code })).status).toBe(200);
  });

  it('lets exactly one of 20 concurrent verifies of one code succeed', async () => {
    const { t, method_id, code } = await sent();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.call('POST', '/v1/auth/otps/verify', { method_id, otp: code, session_expires_in: 60 }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.body.error_type === 'otp_code_used')).toHaveLength(19);
  });

  describe('device fingerprint matching', () => {
    const fp = { ip: '203.0.113.9', user_agent: 'Mozilla/5.0 Test' };
    it.each([
      ['ip', { ...fp, user_agent: 'Other' }, 200],
      ['ip', { ...fp, ip: '198.51.100.1' }, 401],
      ['user_agent', { ...fp, ip: '198.51.100.1' }, 200],
      ['user_agent', { ...fp, user_agent: 'Other' }, 401],
      ['both', fp, 200],
      ['both', { ...fp, user_agent: 'Other' }, 401],
      ['both', undefined, 401],
      ['none', { ip: '1.1.1.1' }, 200],
    ] as const)('mode %s, verifying with %j → %i', async (mode, verifying, status) => {
      const { t, method_id, code } = await sent(
        { otp: { device_fingerprint_match: mode } },
        { device_fingerprint: fp },
      );
      const res = await t.call('POST', '/v1/auth/otps/verify', {
        method_id,
        otp: code,
        ...(verifying ? { device_fingerprint: verifying } : {}),
      });
      expect(res.status).toBe(status);
      if (status === 401) expect(expectErrorShape(res).error_type).toBe('device_fingerprint_mismatch');
    });

    it('a wrong device spends nothing: the owner verifies with the same code after', async () => {
      const { t, method_id, code } = await sent(
        { otp: { device_fingerprint_match: 'ip' } },
        { device_fingerprint: fp },
      );
      const stranger = await t.call('POST', '/v1/auth/otps/verify', {
        method_id,
        otp: code,
        device_fingerprint: { ip: '198.51.100.1' },
      });
      expect(expectErrorShape(stranger).error_type).toBe('device_fingerprint_mismatch');
      const owner = await t.call('POST', '/v1/auth/otps/verify', {
        method_id,
        otp: code,
        device_fingerprint: fp,
      });
      expect(owner.status).toBe(200);
    });

    it('requires the field on both sides', () => {
      expect(fingerprintMatches('ip', null, { ip: 'x' })).toBe(false);
      expect(fingerprintMatches('ip', { ip: 'x' }, {})).toBe(false);
      expect(fingerprintMatches('ip', { ip: 'x' }, { ip: 'x' })).toBe(true);
    });
  });

  it('marks a phone number verified and returns the spec’s phone-number factor', async () => {
    const { t, sender } = await setup();
    const send = await t.call('POST', '/v1/auth/otps/sms/login_or_create', { phone_number: '+14155550177' });
    const res = await t.call('POST', '/v1/auth/otps/verify', {
      method_id: send.body.method_id,
      otp: sender.lastCode('+14155550177'),
      session_expires_in: 60,
      device_fingerprint: { ip: '203.0.113.1', user_agent: 'UA' },
    });
    expect(res.status).toBe(200);
    expect(res.body.method_type).toBe('phone_number');
    expect(res.body.session.factors).toEqual([
      {
        type: 'otp',
        delivery_channel: 'sms',
        method: {
          method_id: send.body.method_id,
          method_type: 'phone_number',
          phone_number_id: send.body.method_id,
          phone_number: '+14155550177',
          last_verified_at: expect.any(Number),
        },
      },
    ]);
    expect(res.body.session.device_fingerprint).toEqual({ ip: '203.0.113.1', user_agent: 'UA' });
    const jwks = await t.call('GET', '/v1/auth/sessions/jwks');
    const { payload } = await jwtVerify(res.body.session_jwt, createLocalJWKSet(jwks.body), {
      audience: t.app_id,
      issuer: 'latchkey',
      currentDate: new Date(res.body.session.started_at * 1000),
    });
    expect(payload).toMatchObject({ sub: send.body.user_id, sid: res.body.session.id });
  });

  it('activates a user created as pending', async () => {
    const { t, sender } = await setup();
    const send = await t.call('POST', '/v1/auth/otps/email/login_or_create', {
      email: 'p@example.com',
      create_user_as_pending: true,
    });
    expect((await t.call('GET', `/v1/auth/users/${send.body.user_id}`)).body.status).toBe('pending');
    await t.call('POST', '/v1/auth/otps/verify', {
      method_id: send.body.method_id,
      otp: sender.lastCode('p@example.com'),
    });
    expect((await t.call('GET', `/v1/auth/users/${send.body.user_id}`)).body.status).toBe('active');
  });
});

describe('removing a phone number or email', () => {
  it('removes the method, kills its pending code, and 404s for unknown or foreign ids', async () => {
    const { t, latchkey, sender } = await setup();
    const send = await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: 'gone@example.com' });
    const code = sender.lastCode('gone@example.com');
    const foreign = await (await testApp(latchkey)).call(
      'DELETE',
      `/v1/auth/users/emails/${send.body.email_id}/delete`,
    );
    expect(foreign.status).toBe(404);
    expect(expectErrorShape(foreign).error_type).toBe('email_not_found');
    const res = await t.call('DELETE', `/v1/auth/users/emails/${send.body.email_id}/delete`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String), user_id: send.body.user_id });
    expect((await t.call('GET', `/v1/auth/users/${send.body.user_id}`)).body.emails).toEqual([]);
    const verify = await t.call('POST', '/v1/auth/otps/verify', { method_id: send.body.email_id, otp: code });
    expect(verify.status).toBe(404);
    expect(expectErrorShape(verify).error_type).toBe('otp_code_not_found');
    expect((await t.call('DELETE', `/v1/auth/users/emails/${send.body.email_id}/delete`)).status).toBe(404);
    const phone = await t.call('POST', '/v1/auth/users', { phone_number: '+14155550190' });
    const removed = await t.call(
      'DELETE',
      `/v1/auth/users/phone_number/${phone.body.phone_number_id}/delete`,
    );
    expect(removed.body).toEqual({ message: expect.any(String), user_id: phone.body.user_id });
    expect(
      (await t.call('DELETE', `/v1/auth/users/phone_number/${phone.body.phone_number_id}/delete`)).body
        .error_type,
    ).toBe('phone_number_not_found');
  });
});
