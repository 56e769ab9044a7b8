import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey } from '../src/index.js';
import {
  capturingSender,
  expectErrorShape,
  manualClock,
  TEST_SECRET,
  type TestApp,
  testApp,
} from './helpers.js';
import { storageBackends } from './storage-backends.js';
import { assert, attest } from './webauthn-authenticator.js';

const ORIGIN = 'https://example.com';
const REG_BEGIN = '/v1/auth/webauthn/registrations/begin';
const REG_CREATE = '/v1/auth/webauthn/registrations/create';

/**
 * Issue 14 point 1: a browser adds a passkey with the public token only by proving, with a live
 * session, that it is the user; it can never name a user. Otherwise anyone could plant a passkey
 * on an account before (or after) its owner signs in.
 */
describe.each(storageBackends())('passkey registration with the public token on $name', (backend) => {
  let dispose: () => Promise<void>;
  let t: TestApp;
  const clock = manualClock(Date.now());
  const sender = capturingSender();

  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    const latchkey = createLatchkey({ storage: opened.storage, secret: TEST_SECRET, clock, sender });
    t = await testApp(latchkey);
    await latchkey.apps.updateSettings(t.app_id, { webauthn: { allowed_domains: ['example.com'] } });
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** Signs a fresh user in by email code: their id and live session. */
  async function signedIn(minutes = 60) {
    const email = `u${Math.random().toString(36).slice(2)}@example.com`;
    const send = await t.call('POST', '/v1/auth/otps/email/login_or_create', { email }, t.public_token);
    expect(send.status, JSON.stringify(send.body)).toBe(200);
    const verify = await t.call(
      'POST',
      '/v1/auth/otps/verify',
      { method_id: send.body.method_id, otp: sender.lastCode(email), session_expires_in: minutes },
      t.public_token,
    );
    expect(verify.status, JSON.stringify(verify.body)).toBe(200);
    return {
      user_id: send.body.user_id as string,
      session_token: verify.body.session_token as string,
      session_jwt: verify.body.session_jwt as string,
    };
  }

  const credentials = async (userId: string) =>
    ((await t.call('GET', `/v1/auth/users/${userId}`)).body.webauthn_credentials as unknown[]).length;

  const pub = (path: string, body: Record<string, unknown>) => t.call('POST', path, body, t.public_token);

  it("adds a passkey to the session's user (token or JWT), which then signs in as that user", async () => {
    const ada = await signedIn();
    for (const proof of [{ session_token: ada.session_token }, { session_jwt: ada.session_jwt }]) {
      const begin = await pub(REG_BEGIN, { domain: 'example.com', ...proof });
      expect(begin.status, JSON.stringify(begin.body)).toBe(200);
      expect(begin.body.user_id).toBe(ada.user_id);
      const options = begin.body.public_key_credential_creation_options.publicKey;
      expect(Buffer.from(options.user.id, 'base64url').toString()).toBe(ada.user_id);
      const { credential, json } = attest(options, { origin: ORIGIN });
      const create = await pub(REG_CREATE, { public_key_credential: json, ...proof });
      expect(create.status, JSON.stringify(create.body)).toBe(200);
      expect(create.body.user_id).toBe(ada.user_id);

      const signIn = await pub('/v1/auth/webauthn/authentications/begin', { domain: 'example.com' });
      const signed = await pub('/v1/auth/webauthn/authentications/complete', {
        public_key_credential: assert(
          signIn.body.public_key_credential_request_options.publicKey,
          credential,
          {
            origin: ORIGIN,
          },
        ),
      });
      expect([signed.status, signed.body.user_id]).toEqual([200, ada.user_id]);
    }
    expect(await credentials(ada.user_id)).toBe(2);
  });

  it('refuses a user_id with the public token (403), with or without a session, and stores nothing', async () => {
    const victim = await signedIn();
    const attacker = await signedIn();
    for (const proof of [
      {},
      { session_token: attacker.session_token },
      { session_token: victim.session_token },
    ]) {
      const begin = await pub(REG_BEGIN, { domain: 'example.com', user_id: victim.user_id, ...proof });
      expect([begin.status, expectErrorShape(begin).error_type, begin.body.error_field]).toEqual([
        403,
        'secret_key_required',
        'user_id',
      ]);
    }
    // A challenge the attacker got for their own account does not register on the victim's.
    const own = await pub(REG_BEGIN, { domain: 'example.com', session_token: attacker.session_token });
    const { json } = attest(own.body.public_key_credential_creation_options.publicKey, { origin: ORIGIN });
    const named = await pub(REG_CREATE, { public_key_credential: json, user_id: victim.user_id });
    expect([named.status, expectErrorShape(named).error_type]).toEqual([403, 'secret_key_required']);
    const asVictim = await pub(REG_CREATE, {
      public_key_credential: json,
      session_token: victim.session_token,
    });
    expect([asVictim.status, expectErrorShape(asVictim).error_type]).toEqual([
      401,
      'webauthn_challenge_not_found',
    ]);
    expect(await credentials(victim.user_id)).toBe(0);
  });

  it('asks for exactly one session credential (400), and refuses revoked, expired or forged sessions (401)', async () => {
    const ada = await signedIn(5);
    const none = await pub(REG_BEGIN, { domain: 'example.com' });
    expect([none.status, expectErrorShape(none).error_type]).toEqual([400, 'missing_field']);
    const both = await pub(REG_BEGIN, {
      domain: 'example.com',
      session_token: ada.session_token,
      session_jwt: ada.session_jwt,
    });
    expect([both.status, expectErrorShape(both).error_type]).toEqual([400, 'invalid_field']);
    const noneCreate = await pub(REG_CREATE, {
      public_key_credential: attest(
        { challenge: 'AAAA', rp: { id: 'example.com' }, user: { id: 'AAAA' } },
        { origin: ORIGIN },
      ).json,
    });
    expect([noneCreate.status, expectErrorShape(noneCreate).error_type]).toEqual([400, 'missing_field']);

    const forged = await pub(REG_BEGIN, {
      domain: 'example.com',
      session_jwt: `${ada.session_jwt.slice(0, -4)}AAAA`,
    });
    expect([forged.status, expectErrorShape(forged).error_type]).toEqual([401, 'invalid_session_jwt']);
    const unknown = await pub(REG_BEGIN, { domain: 'example.com', session_token: 'lks_not-a-session' });
    expect([unknown.status, expectErrorShape(unknown).error_type]).toEqual([401, 'session_not_found']);

    // Begun while live, the session ends before create: create is refused.
    const begin = await pub(REG_BEGIN, { domain: 'example.com', session_token: ada.session_token });
    expect(begin.status).toBe(200);
    const { json } = attest(begin.body.public_key_credential_creation_options.publicKey, { origin: ORIGIN });
    const revoked = await signedIn();
    await t.call(
      'POST',
      '/v1/auth/sessions/revoke',
      { session_token: revoked.session_token },
      t.public_token,
    );
    const afterRevoke = await pub(REG_BEGIN, { domain: 'example.com', session_token: revoked.session_token });
    expect([afterRevoke.status, expectErrorShape(afterRevoke).error_type]).toEqual([
      401,
      'session_not_found',
    ]);
    clock.advance(6 * 60);
    for (const proof of [{ session_token: ada.session_token }]) {
      const late = await pub(REG_CREATE, { public_key_credential: json, ...proof });
      expect([late.status, expectErrorShape(late).error_type]).toEqual([401, 'session_not_found']);
    }
    expect(await credentials(ada.user_id)).toBe(0);
  });

  it('asks for step-up: a session whose last proof is older than step_up_minutes adds no passkey until it proves one again', async () => {
    const ada = await signedIn();
    clock.advance(11 * 60);
    // (By token: the JWT, 5 minutes long, has expired by now.)
    const stale = await pub(REG_BEGIN, { domain: 'example.com', session_token: ada.session_token });
    expect([stale.status, expectErrorShape(stale).error_type]).toEqual([401, 'step_up_required']);
    // The secret key (the App's backend) is not asked: it decides for itself.
    const backend = await t.call('POST', REG_BEGIN, { domain: 'example.com', user_id: ada.user_id });
    expect(backend.status).toBe(200);
    // Proving a factor again on the same session makes it fresh.
    const email = (
      (await t.call('GET', `/v1/auth/users/${ada.user_id}`)).body.emails as { email: string }[]
    )[0]!.email;
    const send = await t.call('POST', '/v1/auth/otps/email/login_or_create', { email }, t.public_token);
    const again = await t.call(
      'POST',
      '/v1/auth/otps/verify',
      { method_id: send.body.method_id, otp: sender.lastCode(email), session_token: ada.session_token },
      t.public_token,
    );
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const fresh = await pub(REG_BEGIN, { domain: 'example.com', session_token: ada.session_token });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    // The App sets how fresh: 30 minutes lets an 11-minute-old proof through.
    const bob = await signedIn();
    clock.advance(11 * 60);
    await t.latchkey.apps.patchSettings(t.app_id, { sessions: { step_up_minutes: 30 } });
    try {
      const lenient = await pub(REG_BEGIN, { domain: 'example.com', session_token: bob.session_token });
      expect(lenient.status, JSON.stringify(lenient.body)).toBe(200);
    } finally {
      await t.latchkey.apps.patchSettings(t.app_id, { sessions: { step_up_minutes: 10 } });
    }
  });

  it('keeps the secret-key form: user_id required, session fields refused', async () => {
    const ada = await signedIn();
    const ok = await t.call('POST', REG_BEGIN, { domain: 'example.com', user_id: ada.user_id });
    expect([ok.status, ok.body.user_id]).toEqual([200, ada.user_id]);
    const missing = await t.call('POST', REG_BEGIN, { domain: 'example.com' });
    expect([missing.status, expectErrorShape(missing).error_type, missing.body.error_field]).toEqual([
      400,
      'missing_field',
      'user_id',
    ]);
    const withSession = await t.call('POST', REG_BEGIN, {
      domain: 'example.com',
      user_id: ada.user_id,
      session_token: ada.session_token,
    });
    expect([withSession.status, expectErrorShape(withSession).error_type]).toEqual([400, 'invalid_field']);
  });
});

describe('@simplewebauthn/server loading', () => {
  it('is imported for its values only by webauthn/library.ts, on first use (types elsewhere)', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const src = new URL('../src/', import.meta.url);
    const files = (await readdir(src, { recursive: true })).filter((f) => f.endsWith('.ts'));
    const valueImports: string[] = [];
    for (const file of files) {
      const text = await readFile(new URL(file, src), 'utf8');
      for (const m of text.matchAll(/^import\s+(?!type\b)[^;]*from\s+'@simplewebauthn\/server[^']*'/gm))
        valueImports.push(`${file}: ${m[0]}`);
      if (/\bimport\(\s*'@simplewebauthn\/server/.test(text) && !file.endsWith('library.ts'))
        valueImports.push(`${file}: dynamic import`);
    }
    expect(valueImports).toEqual([]);
  });
});
