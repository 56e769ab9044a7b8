import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { isLatchkeyError } from '../src/index.js';
import { appWithSettings } from './helpers.js';

async function signedIn() {
  const { latchkey, clock, sender, t } = await appWithSettings();
  const email = `step-up-${Math.random().toString(36).slice(2)}@example.com`;
  const send = await t.call('POST', '/v1/auth/otps/email/login_or_create', { email });
  const verify = await t.call('POST', '/v1/auth/otps/verify', {
    method_id: send.body.method_id,
    otp: sender.lastCode(email),
    session_expires_in: 60,
  });
  expect(verify.status).toBe(200);
  /** Proves the email again on the existing session (as a step-up screen would). */
  const reprove = async () => {
    await t.call('POST', '/v1/auth/otps/email/send', { email });
    return t.call('POST', '/v1/auth/otps/verify', {
      method_id: send.body.method_id,
      otp: sender.lastCode(email),
      session_token: verify.body.session_token,
    });
  };
  return { latchkey, clock, t, verify, reprove };
}

const refusal = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (err) {
    if (isLatchkeyError(err)) return err;
    throw err;
  }
  throw new Error('expected a refusal');
};

describe('step-up', () => {
  it('the session JWT carries auth_time and amr', async () => {
    const { verify } = await signedIn();
    const claims = decodeJwt(verify.body.session_jwt);
    expect(claims.auth_time).toBe(verify.body.session.factors[0].method.last_verified_at);
    expect(claims.amr).toEqual(['otp']);
  });

  it('sessions.check refuses a proof older than fresh_within, until the factor is proven again on the same session', async () => {
    const { latchkey, clock, t, verify, reprove } = await signedIn();
    const check = (mode: 'jwt' | 'token', fresh_within: number | string = '2m') =>
      latchkey.sessions.check({
        app_id: t.app_id,
        ...(mode === 'jwt'
          ? { session_jwt: verify.body.session_jwt }
          : { session_token: verify.body.session_token }),
        mode,
        fresh_within,
      });
    expect((await check('jwt')).session_id).toBe(verify.body.session.id);
    clock.advance(119);
    expect((await check('token')).auth_time).toBe(verify.body.session.factors[0].method.last_verified_at);
    clock.advance(2);
    for (const mode of ['jwt', 'token'] as const) {
      const err = await refusal(check(mode));
      expect(err.errorType).toBe('step_up_required');
      expect(err.status).toBe(401);
      expect(err.message).toContain('120 seconds');
    }
    // Without the requirement the session is as live as ever.
    expect(
      (await latchkey.sessions.check({ app_id: t.app_id, session_token: verify.body.session_token })).user_id,
    ).toBe(verify.body.user_id);
    const again = await reprove();
    expect(again.status).toBe(200);
    expect(again.body.session.id).toBe(verify.body.session.id);
    expect((await check('token')).auth_time).toBe(again.body.session.factors[0].method.last_verified_at);
    expect(await refusal(check('token', 'soon'))).toMatchObject({ errorType: 'invalid_field' });
  });

  it('refuses a session without one of the factors asked for, naming them', async () => {
    const { latchkey, t, verify } = await signedIn();
    const check = (factors: Array<'webauthn' | 'totp' | 'otp'>) =>
      latchkey.sessions.check({
        app_id: t.app_id,
        session_jwt: verify.body.session_jwt,
        factors,
        fresh_within: 300,
      });
    const err = await refusal(check(['webauthn', 'totp']));
    expect(err.errorType).toBe('step_up_required');
    expect(err.message).toContain('webauthn or totp');
    expect((await check(['totp', 'otp'])).user_id).toBe(verify.body.user_id);
  });
});
