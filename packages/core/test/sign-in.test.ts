import { memoryStorage } from '@latchkey/memory';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createLatchkey, FACTOR_TYPES, type Factor, type FactorType, type Storage } from '../src/index.js';
import { factorSchema } from '../src/shared/factor.js';
import { capturingSender, manualClock, TEST_SECRET, type TestApp, testApp } from './helpers.js';
import { storageBackends } from './storage-backends.js';
import { base32Decode, oracleCode } from './totp-oracle.js';
import { assert, attest } from './webauthn-authenticator.js';

/*
 * Every sign-in method ends in the same step (sign-in/complete.ts): the session it creates
 * carries that method's factor, exactly as documented, and the device fingerprint the request
 * sent; a session it extends keeps the fingerprint it was created with. Run on every storage,
 * since factors and fingerprints are stored as JSON.
 */

const ORIGIN = 'https://example.com';
const REDIRECT = 'https://app.example.com/auth';
const device = (n: number) => ({ ip: `203.0.113.${n}`, user_agent: `Browser/${n}` });

interface Harness {
  t: TestApp;
  storage: Storage;
  clock: ReturnType<typeof manualClock>;
  sender: ReturnType<typeof capturingSender>;
  now(): number;
}

/** A proof ready to be sent: the route, its body without the session fields, and the factor it proves. */
interface Proof {
  path: string;
  body: Record<string, unknown>;
  key?: 'public';
  factor: Factor;
}

async function harness(storage: Storage): Promise<Harness> {
  const clock = manualClock();
  const sender = capturingSender();
  const t = await testApp(createLatchkey({ storage, secret: TEST_SECRET, clock, sender }));
  await t.latchkey.apps.updateSettings(t.app_id, {
    redirect_urls: {
      login: [REDIRECT],
      signup: [REDIRECT],
      default_login: REDIRECT,
      default_signup: REDIRECT,
    },
    webauthn: { allowed_domains: ['example.com'] },
  });
  return { t, storage, clock, sender, now: () => Math.floor(clock.now() / 1000) };
}

async function ok(h: Harness, path: string, body: Record<string, unknown>, key?: 'public') {
  const res = await h.t.call('POST', path, body, key === 'public' ? h.t.public_token : undefined);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

let phones = 0;

/** One fresh proof per call, for each of the six sign-in methods (OTP by both channels). */
const proofs: Record<string, (h: Harness, email: string) => Promise<Proof>> = {
  async 'OTP by sms'(h) {
    const phone = `+14155550${100 + ++phones}`.slice(0, 12);
    const sent = await ok(h, '/v1/auth/otps/sms/login_or_create', { phone_number: phone });
    return {
      path: '/v1/auth/otps/verify',
      body: { method_id: sent.phone_number_id, otp: h.sender.lastCode(phone) },
      factor: {
        type: 'otp',
        delivery_channel: 'sms',
        method: {
          method_id: sent.phone_number_id,
          method_type: 'phone_number',
          phone_number_id: sent.phone_number_id,
          phone_number: phone,
          last_verified_at: h.now(),
        },
      },
    };
  },
  async 'OTP by email'(h, email) {
    const sent = await ok(h, '/v1/auth/otps/email/login_or_create', { email });
    return {
      path: '/v1/auth/otps/verify',
      body: { method_id: sent.email_id, otp: h.sender.lastCode(email) },
      factor: {
        type: 'otp',
        delivery_channel: 'email',
        method: {
          method_id: sent.email_id,
          method_type: 'email',
          email_id: sent.email_id,
          email,
          last_verified_at: h.now(),
        },
      },
    };
  },
  async 'magic link'(h, email) {
    const sent = await ok(h, '/v1/auth/magic_links/email/login_or_create', { email });
    const url = new URL(h.sender.sent.filter((m) => m.to === email && m.kind === 'magic_link').at(-1)!.url!);
    return {
      path: '/v1/auth/magic_links/authenticate',
      body: { token: url.searchParams.get('token') },
      factor: {
        type: 'magic_link',
        delivery_channel: 'email',
        method: {
          method_id: sent.email_id,
          method_type: 'email',
          email_id: sent.email_id,
          email,
          last_verified_at: h.now(),
        },
      },
    };
  },
  async TOTP(h, email) {
    const { user_id, totp_id, secret } = await activeTotp(h, email);
    h.clock.advance(30); // the activating code's step is spent
    return {
      path: '/v1/auth/totps/authenticate',
      body: { user_id, totp_code: oracleCode(secret, h.now()) },
      factor: {
        type: 'totp',
        delivery_channel: 'authenticator_app',
        method: { method_id: totp_id, method_type: 'totp', totp_id, last_verified_at: h.now() },
      },
    };
  },
  async 'recovery code'(h, email) {
    const { user_id, totp_id, recovery_codes } = await activeTotp(h, email);
    return {
      path: '/v1/auth/totps/recover',
      body: { user_id, recovery_code: recovery_codes[0] },
      factor: {
        type: 'recovery_code',
        delivery_channel: 'recovery_code',
        method: { method_id: totp_id, method_type: 'totp', totp_id, last_verified_at: h.now() },
      },
    };
  },
  async WebAuthn(h, email) {
    const { user_id } = await ok(h, '/v1/auth/users', { email });
    const begin = await ok(h, '/v1/auth/webauthn/registrations/begin', { domain: 'example.com', user_id });
    const { credential, json } = attest(begin.public_key_credential_creation_options.publicKey, {
      origin: ORIGIN,
    });
    const created = await ok(h, '/v1/auth/webauthn/registrations/create', {
      user_id,
      public_key_credential: json,
    });
    const id = created.webauthn_credential_id;
    const options = await ok(
      h,
      '/v1/auth/webauthn/authentications/begin',
      { domain: 'example.com' },
      'public',
    );
    return {
      path: '/v1/auth/webauthn/authentications/complete',
      key: 'public',
      body: {
        public_key_credential: assert(options.public_key_credential_request_options.publicKey, credential, {
          origin: ORIGIN,
        }),
      },
      factor: {
        type: 'webauthn',
        delivery_channel: 'webauthn',
        method: {
          method_id: id,
          method_type: 'webauthn_credential',
          webauthn_credential_id: id,
          last_verified_at: h.now(),
        },
      },
    };
  },
  async 'wallet sign-in'(h) {
    const wallet = Wallet.createRandom();
    const c = await ok(h, '/v1/auth/wallets/challenge', {
      wallet_type: 'ethereum',
      public_address: wallet.address,
    });
    const signature = Buffer.from((await wallet.signMessage(c.challenge)).slice(2), 'hex').toString('base64');
    const body = { wallet_type: 'ethereum', public_address: wallet.address, nonce: c.nonce, signature };
    // The wallet's id is known once the verify made it: the factor is checked against the response.
    return {
      path: '/v1/auth/wallets/verify',
      key: 'public',
      body,
      factor: {
        type: 'signature_challenge',
        delivery_channel: 'crypto_wallet',
        method: {
          method_id: '<wallet_id>',
          method_type: 'wallet',
          wallet_id: '<wallet_id>',
          wallet_type: 'ethereum',
          public_address: wallet.address,
          last_verified_at: h.now(),
        },
      },
    };
  },
};

async function activeTotp(h: Harness, email: string) {
  const { user_id } = await ok(h, '/v1/auth/users', { email });
  const created = await ok(h, '/v1/auth/totps/create', { user_id });
  const secret = base32Decode(created.secret);
  await ok(h, '/v1/auth/totps/verify', { user_id, totp_code: oracleCode(secret, h.now()) });
  return {
    user_id: user_id as string,
    totp_id: created.totp_id as string,
    secret,
    recovery_codes: created.recovery_codes as string[],
  };
}

/** The factor as expected, with what only the response can tell (a new wallet's id) filled in. */
function expected(proof: Proof, response: { wallet_id?: string }): Factor {
  return JSON.parse(JSON.stringify(proof.factor).replaceAll('<wallet_id>', response.wallet_id ?? ''));
}

for (const backend of storageBackends()) {
  describe(`sign-in on ${backend.name}`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>;
    let h: Harness;
    let n = 0;
    const email = () => `signin.${++n}@example.com`;

    beforeAll(async () => {
      opened = await backend.open();
      h = await harness(opened.storage);
    });
    afterAll(async () => opened?.dispose());

    for (const [name, prove] of Object.entries(proofs)) {
      it(`${name}: the session it creates holds its documented factor and the request's device`, async () => {
        const proof = await prove(h, email());
        const fingerprint = device(n);
        const res = await ok(
          h,
          proof.path,
          { ...proof.body, device_fingerprint: fingerprint, session_expires_in: 60 },
          proof.key,
        );
        const factor = expected(proof, res);
        expect(factorSchema.safeParse(factor).success).toBe(true);
        expect(res.session.factors).toEqual([factor]);
        expect(res.session.device_fingerprint).toEqual(fingerprint);
        // As stored, and as the JWT carries it.
        const stored = await h.storage.sessions.get(h.t.app_id, res.session.id);
        expect(stored?.factors).toEqual([factor]);
        expect(stored?.device_fingerprint).toEqual(fingerprint);
        const claims = await h.t.latchkey.sessions.check({
          app_id: h.t.app_id,
          session_jwt: res.session_jwt,
          mode: 'jwt',
        });
        expect(claims.factors).toEqual([factor]);
        expect(res.user_id).toBe(res.session.user_id);
      });
    }

    it('a sign-in that extends a session adds its factor and keeps the device the session began on', async () => {
      const address = email();
      const first = await proofs['OTP by email']!(h, address);
      const opened = await ok(h, first.path, {
        ...first.body,
        device_fingerprint: device(1),
        session_expires_in: 60,
      });
      // The same user proves a second factor (their TOTP) from another device, sending the session.
      const created = await ok(h, '/v1/auth/totps/create', { user_id: opened.user_id });
      const secret = base32Decode(created.secret);
      await ok(h, '/v1/auth/totps/verify', {
        user_id: opened.user_id,
        totp_code: oracleCode(secret, h.now()),
      });
      h.clock.advance(30);
      const extended = await ok(h, '/v1/auth/totps/authenticate', {
        user_id: opened.user_id,
        totp_code: oracleCode(secret, h.now()),
        device_fingerprint: device(2),
        session_token: opened.session_token,
      });
      expect(extended.session.id).toBe(opened.session.id);
      expect(extended.session.factors.map((f: Factor) => f.type)).toEqual(['otp', 'totp']);
      expect(extended.session.device_fingerprint).toEqual(device(1));
      expect((await h.storage.sessions.get(h.t.app_id, opened.session.id))?.device_fingerprint).toEqual(
        device(1),
      );
    });

    it('a sign-in without a device fingerprint creates a session without one', async () => {
      const proof = await proofs.TOTP!(h, email());
      const res = await ok(h, proof.path, { ...proof.body, session_expires_in: 60 });
      expect(res.session.device_fingerprint).toEqual({ ip: '', user_agent: '' });
      expect((await h.storage.sessions.get(h.t.app_id, res.session.id))?.device_fingerprint).toBeNull();
    });
  });
}

describe('the Factor schema', () => {
  it('takes each documented shape and refuses a mixed one', () => {
    const sms: Factor = {
      type: 'otp',
      delivery_channel: 'sms',
      method: {
        method_id: 'phone_1',
        method_type: 'phone_number',
        phone_number_id: 'phone_1',
        phone_number: '+14155550100',
        last_verified_at: 1,
      },
    };
    expect(factorSchema.parse(sms)).toEqual(sms);
    // An sms factor with an email method, or a method without its own id field, is no factor.
    expect(factorSchema.safeParse({ ...sms, delivery_channel: 'email' }).success).toBe(false);
    const { phone_number_id: _, ...bare } = sms.method as Extract<
      Factor,
      { delivery_channel: 'sms' }
    >['method'];
    expect(factorSchema.safeParse({ ...sms, method: bare }).success).toBe(false);
    expect(factorSchema.safeParse({ ...sms, type: 'password' }).success).toBe(false);
  });

  it('is one of nine shapes in the OpenAPI document, with the spec phone-number method fields', () => {
    const doc = createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET }).openapi() as {
      components: { schemas: Record<string, { oneOf?: { $ref: string }[]; properties?: object }> };
    };
    const schemas = doc.components.schemas;
    expect(schemas.Factor?.oneOf?.map((s) => s.$ref.split('/').pop())).toEqual([
      'SmsOtpFactor',
      'EmailOtpFactor',
      'MagicLinkFactor',
      'TotpFactor',
      'RecoveryCodeFactor',
      'WebAuthnFactor',
      'PasswordFactor',
      'WalletFactor',
      'OAuthFactor',
    ]);
    expect(Object.keys(schemas.PhoneNumberFactorMethod?.properties ?? {}).sort()).toEqual(
      ['last_verified_at', 'method_id', 'method_type', 'phone_number', 'phone_number_id'].sort(),
    );
  });

  it('has every type of factor in FACTOR_TYPES, the kinds step-up may ask for', () => {
    // A new member's type must be added there too (sessions/step-up.ts), or a step-up that names
    // it is refused as an invalid field.
    const types = new Set(factorSchema.options.map((member) => member.shape.type.value));
    expect([...FACTOR_TYPES].sort()).toEqual([...types].sort());
    expectTypeOf<FactorType>().toEqualTypeOf<Factor['type']>();
  });
});
