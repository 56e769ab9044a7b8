import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { WEBAUTHN_TIMEOUT_MS } from '../src/index.js';
import { expectErrorShape, type TestApp, testApp, testLatchkey } from './helpers.js';
import { assert, attest, newCredential, type SoftCredential, TEST_AAGUID } from './webauthn-authenticator.js';

const ORIGIN = 'https://example.com';
const REG_BEGIN = '/v1/auth/webauthn/registrations/begin';
const REG_CREATE = '/v1/auth/webauthn/registrations/create';
const AUTH_BEGIN = '/v1/auth/webauthn/authentications/begin';
const AUTH_COMPLETE = '/v1/auth/webauthn/authentications/complete';
const deletePath = (id: string) => `/v1/auth/users/webauthn_credentials/${id}/delete`;

type Setup = Awaited<ReturnType<typeof setup>>;

async function setup(webauthn: Record<string, unknown> = {}) {
  const { latchkey, clock } = testLatchkey();
  const t = await testApp(latchkey);
  await latchkey.apps.updateSettings(t.app_id, {
    webauthn: { allowed_domains: ['example.com', 'other.example', 'localhost'], ...webauthn },
  });
  const newUser = async (email: string) =>
    (await t.call('POST', '/v1/auth/users', { email, name: { first_name: 'Ada', last_name: 'Lovelace' } }))
      .body.user_id as string;
  return { t, clock, latchkey, user_id: await newUser('ada@example.com'), newUser };
}

const errorType = (res: Parameters<typeof expectErrorShape>[0]) => expectErrorShape(res).error_type;

async function beginRegistration(s: Pick<Setup, 't'>, user_id: string, domain = 'example.com') {
  const res = await s.t.call('POST', REG_BEGIN, { domain, user_id });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.public_key_credential_creation_options.publicKey;
}

/** Begin, attest with the software authenticator, create: the credential and its id. */
async function register(
  s: Pick<Setup, 't'>,
  user_id: string,
  over: { origin?: string; domain?: string; credential?: SoftCredential } = {},
) {
  const options = await beginRegistration(s, user_id, over.domain);
  const { credential, json } = attest(options, {
    origin: over.origin ?? ORIGIN,
    credential: over.credential,
  });
  const res = await s.t.call('POST', REG_CREATE, { user_id, public_key_credential: json });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { credential, webauthn_credential_id: res.body.webauthn_credential_id as string };
}

async function beginSignIn(t: TestApp, body: Record<string, unknown> = {}, key?: string) {
  const res = await t.call('POST', AUTH_BEGIN, { domain: 'example.com', ...body }, key ?? t.public_token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.public_key_credential_request_options.publicKey;
}

const complete = (t: TestApp, credential: unknown, extra: Record<string, unknown> = {}) =>
  t.call('POST', AUTH_COMPLETE, { public_key_credential: credential, ...extra }, t.public_token);

const userView = async (t: TestApp, user_id: string) =>
  (await t.call('GET', `/v1/auth/users/${user_id}`)).body as { webauthn_credentials: any[] };

describe('registration begin', () => {
  it("returns the spec's publicKey creation options, for the App's domain and the user", async () => {
    const s = await setup();
    const res = await s.t.call('POST', REG_BEGIN, { domain: 'example.com', user_id: s.user_id });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(s.user_id);
    const { publicKey } = res.body.public_key_credential_creation_options;
    expect(publicKey).toEqual({
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      rp: { name: 'Test App', id: 'example.com' },
      user: {
        name: 'ada@example.com',
        displayName: 'Ada Lovelace',
        id: Buffer.from(s.user_id).toString('base64url'),
      },
      pubKeyCredParams: [
        { type: 'public-key', alg: -8 },
        { type: 'public-key', alg: -7 },
        { type: 'public-key', alg: -257 },
      ],
      authenticatorSelection: {
        authenticatorAttachment: 'platform',
        userVerification: 'preferred',
        residentKey: 'preferred',
        requireResidentKey: false,
      },
      timeout: WEBAUTHN_TIMEOUT_MS,
      excludeCredentials: [],
      attestation: 'none',
    });
    const again = await beginRegistration(s, s.user_id);
    expect(again.challenge).not.toBe(publicKey.challenge);
  });

  it('takes cross-platform, the rp_name and user_verification settings', async () => {
    const s = await setup({ rp_name: 'Example Inc.', user_verification: 'required' });
    const res = await s.t.call('POST', REG_BEGIN, {
      domain: 'Example.COM',
      user_id: s.user_id,
      authenticator_type: 'cross-platform',
    });
    expect(res.status).toBe(200);
    const { publicKey } = res.body.public_key_credential_creation_options;
    expect(publicKey.rp).toEqual({ name: 'Example Inc.', id: 'example.com' });
    expect(publicKey.authenticatorSelection).toMatchObject({
      authenticatorAttachment: 'cross-platform',
      userVerification: 'required',
    });
  });

  it("lists the user's existing credentials on the domain in excludeCredentials", async () => {
    const s = await setup();
    const { credential } = await register(s, s.user_id);
    await register(s, s.user_id, { domain: 'other.example', origin: 'https://other.example' });
    const options = await beginRegistration(s, s.user_id);
    expect(options.excludeCredentials).toEqual([
      { type: 'public-key', id: credential.id, transports: ['internal'] },
    ]);
  });

  it('refuses a domain the App does not allow, an unknown user and a public token', async () => {
    const s = await setup();
    for (const domain of ['evil.example', 'sub.example.com', 'https://example.com', 'example.com:443']) {
      const res = await s.t.call('POST', REG_BEGIN, { domain, user_id: s.user_id });
      expect(res.status, domain).toBe(400);
      expect(expectErrorShape(res)).toMatchObject({
        error_type: 'webauthn_domain_not_allowed',
        error_field: 'domain',
      });
    }
    const none = await setup({ allowed_domains: [] });
    expect(
      errorType(await none.t.call('POST', REG_BEGIN, { domain: 'example.com', user_id: none.user_id })),
    ).toBe('webauthn_domain_not_allowed');
    const unknown = await s.t.call('POST', REG_BEGIN, { domain: 'example.com', user_id: 'user_nope' });
    expect([unknown.status, errorType(unknown)]).toEqual([404, 'user_not_found']);
    const pub = await s.t.call(
      'POST',
      REG_BEGIN,
      { domain: 'example.com', user_id: s.user_id },
      s.t.public_token,
    );
    expect([pub.status, errorType(pub)]).toEqual([403, 'secret_key_required']);
  });
});

describe('registration create', () => {
  it('verifies the credential and stores its public key, counter, transports and AAGUID', async () => {
    const s = await setup();
    const options = await beginRegistration(s, s.user_id);
    const { credential, json } = attest(options, { origin: ORIGIN });
    const res = await s.t.call('POST', REG_CREATE, {
      user_id: s.user_id,
      public_key_credential: json,
      name: 'Test key',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user_id: s.user_id,
      webauthn_credential_id: expect.stringMatching(/^webauthn_/),
    });
    const stored = await s.latchkey.storage.webauthn.get(s.t.app_id, res.body.webauthn_credential_id);
    expect(stored).toMatchObject({
      user_id: s.user_id,
      credential_id: credential.id,
      public_key: Buffer.from(credential.cosePublicKey).toString('base64url'),
      sign_count: 0,
      transports: ['internal'],
      aaguid: TEST_AAGUID,
      rp_id: 'example.com',
      authenticator_type: 'platform',
      device_type: 'singleDevice',
      backed_up: false,
      name: 'Test key',
      last_used_at: null,
    });
    expect((await userView(s.t, s.user_id)).webauthn_credentials).toEqual([
      {
        webauthn_credential_id: res.body.webauthn_credential_id,
        name: 'Test key',
        domain: 'example.com',
        authenticator_type: 'platform',
        transports: ['internal'],
        aaguid: TEST_AAGUID,
        backed_up: false,
        created_at: stored!.created_at,
        last_used_at: null,
      },
    ]);
  });

  it('refuses a credential answering a challenge it never issued, and keeps the real one usable', async () => {
    const s = await setup();
    const options = await beginRegistration(s, s.user_id);
    const forged = attest(options, { origin: ORIGIN, challenge: randomBytes(32).toString('base64url') });
    const res = await s.t.call('POST', REG_CREATE, {
      user_id: s.user_id,
      public_key_credential: forged.json,
    });
    expect([res.status, errorType(res)]).toEqual([401, 'webauthn_challenge_not_found']);
    const real = attest(options, { origin: ORIGIN });
    expect(
      (await s.t.call('POST', REG_CREATE, { user_id: s.user_id, public_key_credential: real.json })).status,
    ).toBe(200);
  });

  it('uses a challenge once: a second credential for the same options is refused', async () => {
    const s = await setup();
    const options = await beginRegistration(s, s.user_id);
    const first = attest(options, { origin: ORIGIN });
    expect(
      (await s.t.call('POST', REG_CREATE, { user_id: s.user_id, public_key_credential: first.json })).status,
    ).toBe(200);
    const second = attest(options, { origin: ORIGIN });
    const res = await s.t.call('POST', REG_CREATE, {
      user_id: s.user_id,
      public_key_credential: second.json,
    });
    expect([res.status, errorType(res)]).toEqual([401, 'webauthn_challenge_used']);
    expect((await userView(s.t, s.user_id)).webauthn_credentials).toHaveLength(1);
  });

  it('lets exactly one of concurrent creates with one challenge through', async () => {
    const s = await setup();
    const options = await beginRegistration(s, s.user_id);
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        s.t.call('POST', REG_CREATE, {
          user_id: s.user_id,
          public_key_credential: attest(options, { origin: ORIGIN }).json,
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401, 401]);
  });

  it('expires the challenge with the options timeout', async () => {
    const s = await setup();
    const late = await beginRegistration(s, s.user_id);
    s.clock.advance(WEBAUTHN_TIMEOUT_MS / 1000 - 1);
    const inTime = await beginRegistration(s, s.user_id);
    expect(
      (
        await s.t.call('POST', REG_CREATE, {
          user_id: s.user_id,
          public_key_credential: attest(late, { origin: ORIGIN }).json,
        })
      ).status,
    ).toBe(200);
    s.clock.advance(WEBAUTHN_TIMEOUT_MS / 1000);
    const res = await s.t.call('POST', REG_CREATE, {
      user_id: s.user_id,
      public_key_credential: attest(inTime, { origin: ORIGIN }).json,
    });
    expect([res.status, errorType(res)]).toEqual([401, 'webauthn_challenge_expired']);
  });

  it('refuses an origin other than https://<domain>, and stores nothing', async () => {
    const s = await setup();
    for (const origin of [
      'https://evil.example',
      'http://example.com',
      'https://sub.example.com',
      'https://example.com:8443',
      'https://example.com/',
      'null',
    ]) {
      const options = await beginRegistration(s, s.user_id);
      const { json } = attest(options, { origin });
      const res = await s.t.call('POST', REG_CREATE, { user_id: s.user_id, public_key_credential: json });
      expect([res.status, errorType(res)], origin).toEqual([401, 'webauthn_origin_mismatch']);
    }
    expect((await userView(s.t, s.user_id)).webauthn_credentials).toEqual([]);
  });

  it('accepts localhost on any port, over http or https, but not 127.0.0.1', async () => {
    const s = await setup();
    for (const origin of ['http://localhost:5173', 'https://localhost:8443', 'http://localhost']) {
      await register(s, s.user_id, { domain: 'localhost', origin });
    }
    const options = await beginRegistration(s, s.user_id, 'localhost');
    const res = await s.t.call('POST', REG_CREATE, {
      user_id: s.user_id,
      public_key_credential: attest(options, { origin: 'http://127.0.0.1:5173' }).json,
    });
    expect(errorType(res)).toBe('webauthn_origin_mismatch');
  });

  it('refuses an authenticator that signed for another RP id', async () => {
    const s = await setup();
    const options = await beginRegistration(s, s.user_id);
    const { json } = attest(options, { origin: ORIGIN, rpId: 'evil.example' });
    const res = await s.t.call('POST', REG_CREATE, { user_id: s.user_id, public_key_credential: json });
    expect([res.status, errorType(res)]).toEqual([401, 'webauthn_rp_id_mismatch']);
    expect((await userView(s.t, s.user_id)).webauthn_credentials).toEqual([]);
  });

  it('requires user verification only when the options required it', async () => {
    const strict = await setup({ user_verification: 'required' });
    const options = await beginRegistration(strict, strict.user_id);
    const res = await strict.t.call('POST', REG_CREATE, {
      user_id: strict.user_id,
      public_key_credential: attest(options, { origin: ORIGIN, uv: false }).json,
    });
    expect([res.status, errorType(res)]).toEqual([401, 'webauthn_verification_failed']);

    const lenient = await setup();
    const ok = attest(await beginRegistration(lenient, lenient.user_id), { origin: ORIGIN, uv: false });
    expect(
      (await lenient.t.call('POST', REG_CREATE, { user_id: lenient.user_id, public_key_credential: ok.json }))
        .status,
    ).toBe(200);
  });

  it('refuses a challenge issued for another user, and a sign-in challenge', async () => {
    const s = await setup();
    const bob = await s.newUser('bob@example.com');
    const forAda = await beginRegistration(s, s.user_id);
    const res = await s.t.call('POST', REG_CREATE, {
      user_id: bob,
      public_key_credential: attest(forAda, { origin: ORIGIN }).json,
    });
    expect([res.status, errorType(res)]).toEqual([401, 'webauthn_challenge_not_found']);

    const signIn = await beginSignIn(s.t);
    const wrongCeremony = attest(
      { challenge: signIn.challenge, rp: { id: 'example.com' }, user: { id: 'x' } },
      { origin: ORIGIN },
    );
    const res2 = await s.t.call('POST', REG_CREATE, {
      user_id: s.user_id,
      public_key_credential: wrongCeremony.json,
    });
    expect(errorType(res2)).toBe('webauthn_challenge_not_found');
  });

  it('refuses a second registration of the same credential, by the same or another user', async () => {
    const s = await setup();
    const { credential } = await register(s, s.user_id);
    const again = attest(await beginRegistration(s, s.user_id), { origin: ORIGIN, credential });
    const res = await s.t.call('POST', REG_CREATE, { user_id: s.user_id, public_key_credential: again.json });
    expect([res.status, errorType(res)]).toEqual([409, 'duplicate_webauthn_credential']);

    const bob = await s.newUser('bob@example.com');
    const stolen = attest(await beginRegistration(s, bob), { origin: ORIGIN, credential });
    const res2 = await s.t.call('POST', REG_CREATE, { user_id: bob, public_key_credential: stolen.json });
    expect([res2.status, errorType(res2)]).toEqual([409, 'duplicate_webauthn_credential']);
    expect((await userView(s.t, s.user_id)).webauthn_credentials).toHaveLength(1);
    expect((await userView(s.t, bob)).webauthn_credentials).toEqual([]);
  });

  it('answers unreadable credentials with a 4xx, never a 500', async () => {
    const s = await setup();
    type Json = ReturnType<typeof attest>['json'];
    const withResponse = (j: Json, change: Record<string, string>) => ({
      ...j,
      response: { ...j.response, ...change },
    });
    const mutations: Array<[string, (j: Json) => unknown]> = [
      ['clientDataJSON not JSON', (j) => withResponse(j, { clientDataJSON: 'bm90IGpzb24' })],
      ['clientDataJSON without challenge', (j) => withResponse(j, { clientDataJSON: 'e30' })],
      ['clientDataJSON not base64url', (j) => withResponse(j, { clientDataJSON: '***' })],
      ['attestationObject garbage', (j) => withResponse(j, { attestationObject: 'AAAA' })],
      ['id differs from rawId', (j) => ({ ...j, rawId: 'AAAA' })],
      ['wrong type', (j) => ({ ...j, type: 'password' })],
    ];
    for (const [name, mutate] of mutations) {
      const { json } = attest(await beginRegistration(s, s.user_id), { origin: ORIGIN });
      const res = await s.t.call('POST', REG_CREATE, {
        user_id: s.user_id,
        public_key_credential: mutate(json),
      });
      expect(res.status, name).toBeGreaterThanOrEqual(400);
      expect(res.status, name).toBeLessThan(500);
      expectErrorShape(res);
    }
    expect((await userView(s.t, s.user_id)).webauthn_credentials).toEqual([]);
  });
});

describe('authentication', () => {
  it('signs in with a discoverable passkey and the public token, and opens a session with a webauthn factor', async () => {
    const s = await setup();
    const { credential, webauthn_credential_id } = await register(s, s.user_id);
    const res = await s.t.call('POST', AUTH_BEGIN, { domain: 'example.com' }, s.t.public_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      public_key_credential_request_options: {
        publicKey: {
          challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          rpId: 'example.com',
          allowCredentials: [],
          userVerification: 'preferred',
          timeout: WEBAUTHN_TIMEOUT_MS,
        },
      },
    });
    const options = res.body.public_key_credential_request_options.publicKey;
    s.clock.advance(10);
    const signed = await complete(s.t, assert(options, credential, { origin: ORIGIN }), {
      session_expires_in: 60,
    });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const now = Math.floor(s.clock.now() / 1000);
    expect(signed.body).toMatchObject({
      user_id: s.user_id,
      webauthn_credential_id,
      session_token: expect.any(String),
      session_jwt: expect.any(String),
      session: {
        user_id: s.user_id,
        factors: [
          {
            type: 'webauthn',
            delivery_channel: 'webauthn',
            method: {
              method_id: webauthn_credential_id,
              method_type: 'webauthn_credential',
              webauthn_credential_id,
              last_verified_at: now,
            },
          },
        ],
      },
    });
    const session = await s.t.call('POST', '/v1/auth/sessions/authenticate', {
      session_token: signed.body.session_token,
    });
    expect(session.body.user_id).toBe(s.user_id);
    expect((await userView(s.t, s.user_id)).webauthn_credentials[0].last_used_at).toBe(now);
  });

  it('signs in without a session when none is asked for, and extends a session sent', async () => {
    const s = await setup();
    const { credential } = await register(s, s.user_id);
    const bare = await complete(s.t, assert(await beginSignIn(s.t), credential, { origin: ORIGIN }));
    expect(bare.status).toBe(200);
    expect(bare.body.session_token).toBeUndefined();
    const first = await complete(s.t, assert(await beginSignIn(s.t), credential, { origin: ORIGIN }), {
      session_expires_in: 60,
    });
    const extended = await complete(s.t, assert(await beginSignIn(s.t), credential, { origin: ORIGIN }), {
      session_token: first.body.session_token,
      session_expires_in: 120,
    });
    expect(extended.body.session.id).toBe(first.body.session.id);
    // The same method again renews its factor rather than adding one (one per type and method).
    expect(extended.body.session.factors).toHaveLength(1);
  });

  it("limits a sign-in by user_id to that user's credentials on the domain, with the secret key only", async () => {
    const s = await setup();
    const { credential } = await register(s, s.user_id);
    await register(s, s.user_id, { domain: 'other.example', origin: 'https://other.example' });
    const options = await beginSignIn(s.t, { user_id: s.user_id }, s.t.secret_key);
    expect(options.allowCredentials).toEqual([
      { type: 'public-key', id: credential.id, transports: ['internal'] },
    ]);
    const res = await complete(s.t, assert(options, credential, { origin: ORIGIN }));
    expect(res.body.user_id).toBe(s.user_id);

    const pub = await s.t.call(
      'POST',
      AUTH_BEGIN,
      { domain: 'example.com', user_id: s.user_id },
      s.t.public_token,
    );
    expect([pub.status, errorType(pub)]).toEqual([403, 'secret_key_required']);
    const bob = await s.newUser('bob@example.com');
    const none = await s.t.call('POST', AUTH_BEGIN, { domain: 'example.com', user_id: bob });
    expect([none.status, errorType(none)]).toEqual([404, 'webauthn_credential_not_found']);
    const bad = await s.t.call('POST', AUTH_BEGIN, { domain: 'evil.example' }, s.t.public_token);
    expect(errorType(bad)).toBe('webauthn_domain_not_allowed');
  });

  it("refuses another user's credential for a sign-in begun for one user, and a user handle that is not the owner's", async () => {
    const s = await setup();
    await register(s, s.user_id);
    const bob = await s.newUser('bob@example.com');
    const bobs = await register(s, bob);
    const options = await beginSignIn(s.t, { user_id: s.user_id }, s.t.secret_key);
    const res = await complete(s.t, assert(options, bobs.credential, { origin: ORIGIN }), {
      session_expires_in: 60,
    });
    expect([res.status, errorType(res)]).toEqual([401, 'webauthn_credential_not_allowed']);
    expect(res.body.session_token).toBeUndefined();

    const handle = Buffer.from(s.user_id).toString('base64url');
    const lying = assert(await beginSignIn(s.t), bobs.credential, { origin: ORIGIN, userHandle: handle });
    expect(errorType(await complete(s.t, lying))).toBe('webauthn_credential_not_allowed');
  });

  it('refuses a wrong, reused or expired challenge, a wrong origin and a wrong RP id', async () => {
    const s = await setup();
    const { credential } = await register(s, s.user_id);
    const options = await beginSignIn(s.t);

    const forged = assert(options, credential, {
      origin: ORIGIN,
      challenge: randomBytes(32).toString('base64url'),
    });
    expect(errorType(await complete(s.t, forged))).toBe('webauthn_challenge_not_found');

    expect((await complete(s.t, assert(options, credential, { origin: ORIGIN }))).status).toBe(200);
    const replay = await complete(s.t, assert(options, credential, { origin: ORIGIN }));
    expect([replay.status, errorType(replay)]).toEqual([401, 'webauthn_challenge_used']);

    const stale = await beginSignIn(s.t);
    s.clock.advance(WEBAUTHN_TIMEOUT_MS / 1000);
    expect(errorType(await complete(s.t, assert(stale, credential, { origin: ORIGIN })))).toBe(
      'webauthn_challenge_expired',
    );

    const phished = assert(await beginSignIn(s.t), credential, { origin: 'https://examp1e.com' });
    expect(errorType(await complete(s.t, phished))).toBe('webauthn_origin_mismatch');

    const wrongRp = assert(await beginSignIn(s.t), credential, { origin: ORIGIN, rpId: 'evil.example' });
    expect(errorType(await complete(s.t, wrongRp))).toBe('webauthn_rp_id_mismatch');
  });

  it('refuses a bad signature, an unknown credential, a credential of another domain and a registration challenge', async () => {
    const s = await setup();
    const { credential } = await register(s, s.user_id);
    const signed = assert(await beginSignIn(s.t), credential, { origin: ORIGIN });
    const tampered = {
      ...signed,
      response: {
        ...signed.response,
        signature: assert(await beginSignIn(s.t), credential, { origin: ORIGIN }).response.signature,
      },
    };
    expect(errorType(await complete(s.t, tampered))).toBe('webauthn_verification_failed');

    const stranger = newCredential(Buffer.from(s.user_id).toString('base64url'));
    expect(errorType(await complete(s.t, assert(await beginSignIn(s.t), stranger, { origin: ORIGIN })))).toBe(
      'webauthn_credential_not_allowed',
    );

    const elsewhere = await beginSignIn(s.t, { domain: 'other.example' });
    expect(
      errorType(await complete(s.t, assert(elsewhere, credential, { origin: 'https://other.example' }))),
    ).toBe('webauthn_credential_not_allowed');

    const registration = await beginRegistration(s, s.user_id);
    const misuse = assert({ challenge: registration.challenge, rpId: 'example.com' }, credential, {
      origin: ORIGIN,
    });
    expect(errorType(await complete(s.t, misuse))).toBe('webauthn_challenge_not_found');
  });

  it("never signs in with another App's credential", async () => {
    const s = await setup();
    const { credential } = await register(s, s.user_id);
    const other = await testApp(s.latchkey);
    await s.latchkey.apps.updateSettings(other.app_id, { webauthn: { allowed_domains: ['example.com'] } });
    const options = await beginSignIn(other);
    expect(errorType(await complete(other, assert(options, credential, { origin: ORIGIN })))).toBe(
      'webauthn_credential_not_allowed',
    );
  });

  it('requires user verification when the App does', async () => {
    const s = await setup();
    const { credential } = await register(s, s.user_id);
    await s.latchkey.apps.updateSettings(s.t.app_id, {
      webauthn: { allowed_domains: ['example.com'], user_verification: 'required' },
    });
    const options = await beginSignIn(s.t);
    expect(options.userVerification).toBe('required');
    const res = await complete(s.t, assert(options, credential, { origin: ORIGIN, uv: false }));
    expect([res.status, errorType(res)]).toEqual([401, 'webauthn_verification_failed']);
    expect((await complete(s.t, assert(await beginSignIn(s.t), credential, { origin: ORIGIN }))).status).toBe(
      200,
    );
  });

  it('refuses a signature counter that does not advance, and changes nothing', async () => {
    const s = await setup();
    const counting = newCredential(Buffer.from(s.user_id).toString('base64url'), 7);
    const { webauthn_credential_id } = await register(s, s.user_id, { credential: counting });
    const ok = await complete(s.t, assert(await beginSignIn(s.t), counting, { origin: ORIGIN, counter: 8 }));
    expect(ok.status).toBe(200);
    const before = await s.latchkey.storage.webauthn.get(s.t.app_id, webauthn_credential_id);
    expect(before?.sign_count).toBe(8);

    s.clock.advance(60);
    for (const counter of [8, 3, 0]) {
      const clone = assert(await beginSignIn(s.t), counting, { origin: ORIGIN, counter });
      const res = await complete(s.t, clone, { session_expires_in: 60 });
      expect([res.status, errorType(res)], `counter ${counter}`).toEqual([
        401,
        'webauthn_counter_regression',
      ]);
      expect(res.body.session_token).toBeUndefined();
    }
    expect(await s.latchkey.storage.webauthn.get(s.t.app_id, webauthn_credential_id)).toEqual(before);
    expect(
      (await complete(s.t, assert(await beginSignIn(s.t), counting, { origin: ORIGIN, counter: 9 }))).status,
    ).toBe(200);
  });

  it('accepts an authenticator that never counts (0 each time)', async () => {
    const s = await setup();
    const { credential } = await register(s, s.user_id);
    for (let i = 0; i < 3; i++) {
      const res = await complete(
        s.t,
        assert(await beginSignIn(s.t), credential, { origin: ORIGIN, counter: 0 }),
      );
      expect(res.status).toBe(200);
    }
  });
});

describe('credential delete', () => {
  it('deletes the credential, which then cannot sign in', async () => {
    const s = await setup();
    const { credential, webauthn_credential_id } = await register(s, s.user_id);
    const res = await s.t.call('DELETE', deletePath(webauthn_credential_id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String), user_id: s.user_id });
    expect((await userView(s.t, s.user_id)).webauthn_credentials).toEqual([]);

    const signIn = await complete(s.t, assert(await beginSignIn(s.t), credential, { origin: ORIGIN }), {
      session_expires_in: 60,
    });
    expect([signIn.status, errorType(signIn)]).toEqual([401, 'webauthn_credential_not_allowed']);
    expect(signIn.body.session_token).toBeUndefined();
    const byUser = await s.t.call('POST', AUTH_BEGIN, { domain: 'example.com', user_id: s.user_id });
    expect(errorType(byUser)).toBe('webauthn_credential_not_found');
    const again = await s.t.call('DELETE', deletePath(webauthn_credential_id));
    expect([again.status, errorType(again)]).toEqual([404, 'webauthn_credential_not_found']);
  });

  it("answers 404 for an unknown id and for another App's credential, which stays", async () => {
    const s = await setup();
    const { credential, webauthn_credential_id } = await register(s, s.user_id);
    const unknown = await s.t.call('DELETE', deletePath('webauthn_nope'));
    expect([unknown.status, errorType(unknown)]).toEqual([404, 'webauthn_credential_not_found']);
    const other = await testApp(s.latchkey);
    const res = await other.call('DELETE', deletePath(webauthn_credential_id));
    expect([res.status, errorType(res)]).toEqual([404, 'webauthn_credential_not_found']);
    expect((await userView(s.t, s.user_id)).webauthn_credentials).toHaveLength(1);
    expect((await complete(s.t, assert(await beginSignIn(s.t), credential, { origin: ORIGIN }))).status).toBe(
      200,
    );
    const pub = await s.t.call('DELETE', deletePath(webauthn_credential_id), undefined, s.t.public_token);
    expect([pub.status, errorType(pub)]).toEqual([403, 'secret_key_required']);
  });
});
