import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { verifySessionJwt } from '../src/index.js';
import { appWithSettings, expectErrorShape, testApp } from './helpers.js';

async function loggedIn(minutes: number | null = 60, settings: Record<string, unknown> = {}) {
  const { latchkey, clock, sender, t } = await appWithSettings(settings);
  const email = `u${Math.random().toString(36).slice(2)}@example.com`;
  const send = await t.call('POST', '/v1/auth/otps/email/login_or_create', { email });
  const verify = await t.call('POST', '/v1/auth/otps/verify', {
    method_id: send.body.method_id,
    otp: sender.lastCode(email),
    ...(minutes === null ? {} : { session_expires_in: minutes }),
  });
  expect(verify.status).toBe(200);
  /** Sends and verifies a fresh code with these session fields. */
  const reverify = async (fields: Record<string, unknown>) => {
    await t.call('POST', '/v1/auth/otps/email/send', { email });
    return t.call('POST', '/v1/auth/otps/verify', {
      method_id: send.body.method_id,
      otp: sender.lastCode(email),
      ...fields,
    });
  };
  return {
    t,
    clock,
    latchkey,
    sender,
    verify,
    reverify,
    user_id: send.body.user_id as string,
    method_id: send.body.method_id as string,
  };
}

describe('session rules of OTP verify', () => {
  it('rule 1: creates a session with a ≥256-bit opaque token and a signed JWT', async () => {
    const { t, verify, user_id, clock } = await loggedIn(60);
    const { session_token, session_jwt, session } = verify.body;
    expect(session_token).toMatch(/^lks_[A-Za-z0-9_-]{43}$/); // 32 random bytes
    const now = Math.floor(clock.now() / 1000);
    expect(session).toMatchObject({
      id: expect.stringMatching(/^session_/),
      user_id,
      session_token,
      started_at: now,
      expires_at: now + 3600,
      last_active_at: now,
      created_at: now,
      updated_at: now,
      device_fingerprint: { ip: '', user_agent: '' },
    });
    expect(session.factors).toHaveLength(1);
    expect(decodeProtectedHeader(session_jwt)).toMatchObject({
      alg: 'ES256',
      kid: expect.stringMatching(/^key_/),
    });
    expect(decodeJwt(session_jwt)).toMatchObject({
      sub: user_id,
      sid: session.id,
      aud: t.app_id,
      iss: 'latchkey',
      iat: now,
      exp: now + 300,
      factors: session.factors,
    });
  });

  it('rule 2: extends the session sent (token or JWT): same id, later expiry, factor renewed', async () => {
    const { verify, reverify, clock } = await loggedIn(60);
    clock.advance(600);
    const byToken = await reverify({ session_token: verify.body.session_token, session_expires_in: 120 });
    expect(byToken.status).toBe(200);
    expect(byToken.body.session.id).toBe(verify.body.session.id);
    expect(byToken.body.session_token).toBe(verify.body.session_token);
    const now = Math.floor(clock.now() / 1000);
    expect(byToken.body.session.expires_at).toBe(now + 120 * 60);
    expect(byToken.body.session.last_active_at).toBe(now);
    // The same method again: one factor, with the latest verification time.
    expect(byToken.body.session.factors).toHaveLength(1);
    expect(byToken.body.session.factors[0].method.last_verified_at).toBe(now);
    clock.advance(60);
    const byJwt = await reverify({ session_jwt: byToken.body.session_jwt, session_expires_in: 600 });
    expect(byJwt.body.session.id).toBe(verify.body.session.id);
    expect(byJwt.body.session.factors).toHaveLength(1);
    expect(byJwt.body.session.factors[0].method.last_verified_at).toBe(now + 60);
    expect(byJwt.body.session.expires_at).toBe(Math.floor(clock.now() / 1000) + 600 * 60);
    expect(byJwt.body.session_token).toBeUndefined();
  });

  it('rule 2: a token sent without session_expires_in renews the factor and keeps the expiry', async () => {
    const { verify, reverify, clock } = await loggedIn(60);
    clock.advance(5);
    const res = await reverify({ session_token: verify.body.session_token });
    expect(res.body.session.id).toBe(verify.body.session.id);
    expect(res.body.session.expires_at).toBe(verify.body.session.expires_at);
    expect(res.body.session.factors).toEqual([
      {
        ...verify.body.session.factors[0],
        method: {
          ...verify.body.session.factors[0].method,
          last_verified_at: verify.body.session.started_at + 5,
        },
      },
    ]);
  });

  it('rule 1 again: an invalid or revoked session sent with session_expires_in gets a new session', async () => {
    const { t, verify, reverify } = await loggedIn(60);
    await t.call('POST', '/v1/auth/sessions/revoke', { session_token: verify.body.session_token });
    const res = await reverify({ session_token: verify.body.session_token, session_expires_in: 30 });
    expect(res.status).toBe(200);
    expect(res.body.session.id).not.toBe(verify.body.session.id);
    const garbage = await reverify({ session_jwt: 'not.a.jwt', session_expires_in: 30 });
    expect(garbage.status).toBe(200);
    expect(garbage.body.session.factors).toHaveLength(1);
  });

  it('never extends another user’s session: a new one is created for the user who proved it', async () => {
    const a = await loggedIn(60);
    const send = await a.t.call('POST', '/v1/auth/otps/email/login_or_create', { email: 'b@example.com' });
    const res = await a.t.call('POST', '/v1/auth/otps/verify', {
      method_id: send.body.method_id,
      otp: a.sender.lastCode('b@example.com'),
      session_token: a.verify.body.session_token,
      session_expires_in: 60,
    });
    expect(res.status).toBe(200);
    expect(res.body.session.user_id).toBe(send.body.user_id);
    expect(res.body.session.id).not.toBe(a.verify.body.session.id);
    const sessionA = await a.latchkey.storage.sessions.get(a.t.app_id, a.verify.body.session.id);
    expect(sessionA?.factors).toHaveLength(1);
  });

  it('rule 3: no session without session_expires_in', async () => {
    const { verify } = await loggedIn(null);
    expect(verify.body).not.toHaveProperty('session');
    expect(verify.body).not.toHaveProperty('session_token');
    expect(verify.body).not.toHaveProperty('session_jwt');
  });

  it('refuses session_expires_in outside 5–525600 minutes', async () => {
    const { t, method_id } = await loggedIn(60);
    for (const session_expires_in of [4, 525_601, 0, -5, 60.5, '60']) {
      const res = await t.call('POST', '/v1/auth/otps/verify', {
        method_id,
        otp: '123456',
        session_expires_in,
      });
      expect(res.status, String(session_expires_in)).toBe(400);
      expect(expectErrorShape(res)).toMatchObject({
        error_type: 'invalid_field',
        error_field: 'session_expires_in',
      });
    }
    for (const ok of [5, 525_600]) {
      const res = await t.call('POST', '/v1/auth/otps/verify', {
        method_id,
        otp: '000000',
        session_expires_in: ok,
      });
      expect(res.status).not.toBe(400);
    }
  });
});

describe('sessions/authenticate and revoke', () => {
  it('authenticates by token and by JWT, extends on request, and returns a fresh JWT', async () => {
    const { t, verify, clock } = await loggedIn(60);
    const byTokenAt = async (seconds: number) => {
      clock.advance(seconds);
      return t.call(
        'POST',
        '/v1/auth/sessions/authenticate',
        { session_token: verify.body.session_token },
        t.public_token,
      );
    };
    // Within the activity interval (60 s) and the JWT's first half-life: nothing changes.
    const early = await byTokenAt(30);
    expect(early.status).toBe(200);
    expect(early.body.user_id).toBe(verify.body.session.user_id);
    expect(early.body.session.last_active_at).toBe(verify.body.session.started_at);
    expect(early.body.session_jwt).toBe(verify.body.session_jwt);
    // Past both (160 s of a 300 s JWT): activity recorded, a new JWT.
    const byToken = await byTokenAt(130);
    expect(byToken.body.session.last_active_at).toBe(verify.body.session.started_at + 160);
    expect(byToken.body.session_jwt).not.toBe(verify.body.session_jwt);
    const byJwt = await t.call('POST', '/v1/auth/sessions/authenticate', {
      session_jwt: byToken.body.session_jwt,
      session_expires_in: 24 * 60,
    });
    expect(byJwt.status).toBe(200);
    expect(byJwt.body.session.expires_at).toBe(Math.floor(clock.now() / 1000) + 24 * 3600);
  });

  it('refuses a revoked session at once, by token and by a still-unexpired JWT', async () => {
    const { t, verify } = await loggedIn(60);
    const revoked = await t.call('POST', '/v1/auth/sessions/revoke', { session_id: verify.body.session.id });
    expect(revoked.body).toEqual({
      message: expect.any(String),
      session_id: verify.body.session.id,
      user_id: verify.body.session.user_id,
      current: false,
    });
    for (const fields of [
      { session_token: verify.body.session_token },
      { session_jwt: verify.body.session_jwt },
    ]) {
      const res = await t.call('POST', '/v1/auth/sessions/authenticate', fields);
      expect(res.status).toBe(401);
      expect(expectErrorShape(res).error_type).toBe('session_not_found');
    }
    expect(
      (await t.call('POST', '/v1/auth/sessions/revoke', { session_id: verify.body.session.id })).status,
    ).toBe(401);
  });

  it('refuses an expired session, a tampered JWT, another App’s session, and ambiguous requests', async () => {
    const { t, verify, clock, latchkey } = await loggedIn(5);
    const other = await testApp(latchkey);
    expect(
      (
        await other.call('POST', '/v1/auth/sessions/authenticate', {
          session_token: verify.body.session_token,
        })
      ).status,
    ).toBe(401);
    expect(
      (await other.call('POST', '/v1/auth/sessions/authenticate', { session_jwt: verify.body.session_jwt }))
        .body.error_type,
    ).toBe('invalid_session_jwt');
    const [h, p, s] = verify.body.session_jwt.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(verify.body.session_jwt), sub: 'user_evil' })).toString('base64url')}.${s}`;
    expect(p).toBeDefined();
    expect(
      (await t.call('POST', '/v1/auth/sessions/authenticate', { session_jwt: forged })).body.error_type,
    ).toBe('invalid_session_jwt');
    const both = await t.call('POST', '/v1/auth/sessions/authenticate', {
      session_jwt: verify.body.session_jwt,
      session_token: 'x',
    });
    expect(both.status).toBe(400);
    expect((await t.call('POST', '/v1/auth/sessions/authenticate', {})).body.error_type).toBe(
      'missing_field',
    );
    clock.advance(5 * 60);
    expect(
      (await t.call('POST', '/v1/auth/sessions/authenticate', { session_token: verify.body.session_token }))
        .body.error_type,
    ).toBe('session_not_found');
  });

  it('keeps JWTs short-lived, never past the session’s end', async () => {
    const { verify } = await loggedIn(60, { sessions: { jwt_lifetime_seconds: 120 } });
    expect(decodeJwt(verify.body.session_jwt).exp).toBe(verify.body.session.started_at + 120);
    const short = await loggedIn(5, { sessions: { jwt_lifetime_seconds: 3600 } });
    expect(decodeJwt(short.verify.body.session_jwt).exp).toBe(short.verify.body.session.expires_at);
  });
});

describe('JWKS and local verification', () => {
  it('publishes the App’s keys with and without an API key, and jose verifies the JWT with them', async () => {
    const { t, verify } = await loggedIn(60);
    const keyed = await t.call('GET', '/v1/auth/sessions/jwks', undefined, t.public_token);
    const open = await t.call('GET', `/v1/auth/sessions/jwks/${t.app_id}`, undefined, null);
    expect(open.status).toBe(200);
    expect(open.body).toEqual(keyed.body);
    expect(open.headers.get('cache-control')).toContain('max-age');
    expect(open.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(open.body.keys[0]).not.toHaveProperty('d');
    const { payload } = await jwtVerify(verify.body.session_jwt, createLocalJWKSet(open.body), {
      audience: t.app_id,
      issuer: 'latchkey',
      currentDate: new Date(verify.body.session.started_at * 1000),
    });
    expect(payload.sid).toBe(verify.body.session.id);
    expect((await t.call('GET', '/v1/auth/sessions/jwks/app_unknown', undefined, null)).status).toBe(404);
  });

  it('verifySessionJwt checks signature, audience and expiry with no storage', async () => {
    const { t, verify } = await loggedIn(60);
    const jwks = (await t.call('GET', `/v1/auth/sessions/jwks/${t.app_id}`)).body;
    const now = verify.body.session.started_at;
    const claims = await verifySessionJwt(verify.body.session_jwt, { jwks, appId: t.app_id, now });
    expect(claims).toMatchObject({ sub: verify.body.session.user_id, sid: verify.body.session.id });
    await expect(
      verifySessionJwt(verify.body.session_jwt, { jwks, appId: 'app_other', now }),
    ).rejects.toMatchObject({
      errorType: 'invalid_session_jwt',
    });
    await expect(
      verifySessionJwt(verify.body.session_jwt, { jwks, appId: t.app_id, now: now + 301 }),
    ).rejects.toMatchObject({
      errorType: 'invalid_session_jwt',
    });
  });

  it('rotates the signing key: new JWTs use a new kid, old ones still verify', async () => {
    const { t, verify, latchkey } = await loggedIn(60);
    await latchkey.sessions.rotateSigningKey(t.app_id);
    const after = await t.call('POST', '/v1/auth/sessions/authenticate', {
      session_jwt: verify.body.session_jwt,
    });
    expect(after.status).toBe(200);
    expect(decodeProtectedHeader(after.body.session_jwt).kid).not.toBe(
      decodeProtectedHeader(verify.body.session_jwt).kid,
    );
    const jwks = (await t.call('GET', `/v1/auth/sessions/jwks/${t.app_id}`)).body;
    expect(jwks.keys).toHaveLength(2);
  });

  it('signs with EdDSA when the App asks for it', async () => {
    const { verify } = await loggedIn(60, { sessions: { jwt_alg: 'EdDSA' } });
    expect(decodeProtectedHeader(verify.body.session_jwt).alg).toBe('EdDSA');
  });
});

describe('secrets at rest', () => {
  it('stores session tokens hashed and signing keys sealed', async () => {
    const { t, verify, latchkey } = await loggedIn(60);
    const session = await latchkey.storage.sessions.get(t.app_id, verify.body.session.id);
    const keys = await latchkey.storage.signingKeys.list(t.app_id);
    const dump = JSON.stringify({ session, keys });
    expect(dump).not.toContain(verify.body.session_token);
    expect(dump).not.toContain(verify.body.session_token.slice(4, 24));
    expect(keys[0]!.sealed_private_key).toMatch(/^lkv1\./);
    expect(JSON.stringify(keys[0]!.public_jwk)).not.toContain('"d"');
  });
});

describe('revocation rights', () => {
  it('revokes by id only with the secret key; by token or JWT with the public token too', async () => {
    const { t, verify, reverify } = await loggedIn(60);
    const byId = await t.call(
      'POST',
      '/v1/auth/sessions/revoke',
      { session_id: verify.body.session.id },
      t.public_token,
    );
    expect(byId.status).toBe(403);
    expect(expectErrorShape(byId).error_type).toBe('secret_key_required');
    expect(
      (await t.call('POST', '/v1/auth/sessions/authenticate', { session_token: verify.body.session_token }))
        .status,
    ).toBe(200);
    const byJwt = await t.call(
      'POST',
      '/v1/auth/sessions/revoke',
      { session_jwt: verify.body.session_jwt },
      t.public_token,
    );
    expect(byJwt.status).toBe(200);
    const other = await reverify({ session_expires_in: 60 });
    const byToken = await t.call(
      'POST',
      '/v1/auth/sessions/revoke',
      { session_token: other.body.session_token },
      t.public_token,
    );
    expect(byToken.status).toBe(200);
  });
});
