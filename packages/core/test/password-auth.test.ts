import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey, createPasswordHasher, type EventRecord, type Storage } from '../src/index.js';
import {
  capturingSender,
  expectErrorShape,
  manualClock,
  TEST_SECRET,
  type TestApp,
  testApp,
} from './helpers.js';
import { storageBackends } from './storage-backends.js';

const RESET = 'https://app.example.com/reset';
const STRONG = 'plum-ledger-quartz-harbor-91';
const STRONG2 = 'violet-anchor-meadow-copper-47';
const BREACHED = 'breached-but-long-enough-passphrase-1';

/** Cheap Argon2id costs: the tests check behaviour, the bench checks the real costs. */
const testHasher = () => createPasswordHasher({ params: { memoryKiB: 64, iterations: 1, parallelism: 1 } });

/** The hashes outside tools make: the reference `argon2` command, `htpasswd -B`, Python's hashlib. */
function referenceHashes(password: string) {
  const argon2 = execFileSync('argon2', ['somesaltsomesalt', '-id', '-t', '2', '-m', '10', '-p', '1', '-e'], {
    input: password,
  })
    .toString()
    .trim();
  const bcrypt = execFileSync('htpasswd', ['-nbBC', '5', 'u', password]).toString().trim().split(':')[1]!;
  const pbkdf2 = execFileSync('python3', [
    '-c',
    `import hashlib,base64,sys; pw=sys.argv[1].encode(); s='saltysalt1234'; h=hashlib.pbkdf2_hmac('sha256', pw, s.encode(), 1000); print('pbkdf2_sha256$1000$'+s+'$'+base64.b64encode(h).decode())`,
    password,
  ])
    .toString()
    .trim();
  return { argon2, bcrypt, pbkdf2 };
}

describe.each(storageBackends())('password-auth on $name', (backend) => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let t: TestApp;
  let other: TestApp;
  const clock = manualClock();
  const sender = capturingSender();
  /** Password checks storage let through (granted tickets). */
  let checked = 0;
  const events: EventRecord[] = [];

  beforeAll(async () => {
    const opened = await backend.open();
    storage = opened.storage;
    dispose = opened.dispose;
    const begin = storage.passwords.beginCheck.bind(storage.passwords);
    storage.passwords.beginCheck = async (...args) => {
      const ticket = await begin(...args);
      if (ticket?.granted) checked += 1;
      return ticket;
    };
    const latchkey = createLatchkey({
      storage,
      secret: TEST_SECRET,
      clock,
      sender,
      passwordHasher: testHasher(),
      breachedPasswords: { isBreached: async (pw) => pw === BREACHED },
    });
    latchkey.events.on('*', (e) => {
      events.push(e);
    });
    t = await testApp(latchkey);
    other = await testApp(latchkey);
    for (const app of [t, other]) await configure(app);
  });

  /** The App's settings: these tests' redirects and limits, and `passwords` changes on top. */
  const configure = (app: TestApp, passwords: Record<string, unknown> = {}) =>
    app.latchkey.apps.updateSettings(app.app_id, {
      redirect_urls: {
        reset_password: [RESET, 'https://app.example.com/deep/*'],
        default_reset_password: RESET,
      },
      passwords: { max_failures: 5, lockout_minutes: 15, ...passwords },
    });
  afterAll(async () => {
    await dispose?.();
  });

  let n = 0;
  const freshEmail = () => `pw${++n}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const post = (path: string, body: unknown, key?: string | null) =>
    t.call('POST', `/v1/auth/passwords/${path}`, body, key);
  async function signUp(email = freshEmail(), password = STRONG) {
    const res = await post('create', { email, password, session_expires_in: 60 });
    expect(res.status).toBe(200);
    return { email, password, ...res.body };
  }
  const lastReset = (to: string) => {
    const m = sender.sent.filter((x) => x.to === to && x.kind === 'password_reset').at(-1);
    if (!m?.url) throw new Error(`no reset link went to ${to}`);
    return new URL(m.url);
  };

  it('creates a user with a session, then signs in with a password factor', async () => {
    const email = freshEmail();
    const created = await post('create', {
      email: email.toUpperCase(),
      password: STRONG,
      session_expires_in: 60,
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      user_id: expect.stringMatching(/^user_/),
      email_id: expect.stringMatching(/^email_/),
      session_token: expect.any(String),
    });
    const stored = await storage.passwords.get(t.app_id, created.body.user_id);
    expect(stored?.hash).toMatch(/^\$argon2id\$v=19\$m=64,t=1,p=1\$/);
    expect(stored?.hash).not.toContain(STRONG);

    const auth = await post(
      'authenticate',
      { email, password: STRONG, session_expires_in: 30 },
      t.public_token,
    );
    expect(auth.status).toBe(200);
    expect(auth.body).toMatchObject({ user_id: created.body.user_id, email_id: created.body.email_id });
    expect(auth.body.session.factors[0]).toMatchObject({
      type: 'password',
      delivery_channel: 'knowledge',
      method: { method_type: 'email', email, email_id: created.body.email_id },
    });
    // Without session_expires_in nothing is issued; with the same user's session it is extended.
    const bare = await post('authenticate', { email, password: STRONG });
    expect(bare.body).toEqual({ user_id: created.body.user_id, email_id: created.body.email_id });
    const extended = await post('authenticate', {
      email,
      password: STRONG,
      session_token: auth.body.session_token,
    });
    expect(extended.body.session.id).toBe(auth.body.session.id);
    expect(events.some((e) => e.type === 'password.created' && e.data.user_id === created.body.user_id)).toBe(
      true,
    );
  });

  it('answers a wrong password and an unknown email alike', async () => {
    const { email } = await signUp();
    const wrong = await post('authenticate', { email, password: 'wrong-password-here' }, t.public_token);
    const unknown = await post(
      'authenticate',
      { email: freshEmail(), password: 'wrong-password-here' },
      t.public_token,
    );
    for (const res of [wrong, unknown]) expect(res.status).toBe(401);
    const [a, b] = [expectErrorShape(wrong), expectErrorShape(unknown)];
    expect({ ...a, request_id: '' }).toEqual({ ...b, request_id: '' });
    expect(a.error_type).toBe('invalid_credentials');
  });

  it('refuses weak and breached passwords before writing anything', async () => {
    const email = freshEmail();
    const weak = await post('create', { email, password: 'password1' });
    expect(weak.status).toBe(400);
    expect(expectErrorShape(weak)).toMatchObject({ error_type: 'weak_password', error_field: 'password' });
    const breached = await post('create', { email, password: BREACHED });
    expect(expectErrorShape(breached)).toMatchObject({
      error_type: 'breached_password',
      error_field: 'password',
    });
    expect(await storage.emails.findByAddress(t.app_id, email)).toBeNull();
  });

  it('public sign-up: off by default, then no enumeration (notice mode) or a 409 (conflict mode)', async () => {
    const refused = await post('create', { email: freshEmail(), password: STRONG }, t.public_token);
    expect(expectErrorShape(refused)).toMatchObject({ status_code: 403, error_type: 'secret_key_required' });

    await configure(t, { public_signup: true });
    const owner = await signUp();
    const before = sender.sent.length;
    const newcomer = await post(
      'create',
      { email: freshEmail(), password: STRONG, session_expires_in: 60 },
      t.public_token,
    );
    const taken = await post(
      'create',
      { email: owner.email, password: STRONG2, session_expires_in: 60 },
      t.public_token,
    );
    for (const res of [newcomer, taken]) {
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['email_id', 'user_id']);
    }
    expect(taken.body.user_id).not.toBe(owner.user_id);
    // The owner is told; their password is unchanged.
    const notices = sender.sent.slice(before).filter((m) => m.kind === 'password_notice');
    expect(notices.map((m) => m.to)).toEqual([owner.email]);
    expect((await post('authenticate', { email: owner.email, password: STRONG })).status).toBe(200);
    expect((await post('authenticate', { email: owner.email, password: STRONG2 })).status).toBe(401);

    await configure(t, { public_signup: true, taken_email: 'conflict' });
    const conflict = await post('create', { email: owner.email, password: STRONG2 }, t.public_token);
    expect(expectErrorShape(conflict)).toMatchObject({ status_code: 409, error_type: 'duplicate_email' });
    await configure(t);
  });

  it('the secret key gives an existing user without a password a first one, never a second', async () => {
    const email = freshEmail();
    const user = await t.call('POST', '/v1/auth/users', { email });
    const first = await post('create', { email, password: STRONG });
    expect(first.status).toBe(200);
    expect(first.body.user_id).toBe(user.body.user_id);
    const second = await post('create', { email, password: STRONG2 });
    expect(expectErrorShape(second)).toMatchObject({ status_code: 409, error_type: 'duplicate_email' });
  });

  it('locks an account after max_failures wrong passwords, the right one included, until the lock passes', async () => {
    const { email, user_id } = await signUp();
    for (let i = 0; i < 5; i++)
      expect((await post('authenticate', { email, password: `wrong-${i}-password` })).status).toBe(401);
    const locked = await post('authenticate', { email, password: STRONG });
    expect(expectErrorShape(locked)).toMatchObject({ status_code: 429, error_type: 'password_locked' });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(events.some((e) => e.type === 'sign_in.locked_out' && e.data.user_id === user_id)).toBe(true);
    clock.advance(15 * 60);
    expect((await post('authenticate', { email, password: STRONG })).status).toBe(200);
    // A success cleared the count: four more wrong ones still leave the account open.
    for (let i = 0; i < 4; i++) await post('authenticate', { email, password: `again-${i}-password` });
    expect((await post('authenticate', { email, password: STRONG })).status).toBe(200);
  });

  it('an unknown email locks after the same number of attempts', async () => {
    const email = freshEmail();
    for (let i = 0; i < 5; i++)
      expect((await post('authenticate', { email, password: `wrong-${i}-password` })).status).toBe(401);
    const locked = await post('authenticate', { email, password: STRONG });
    expect(expectErrorShape(locked)).toMatchObject({ status_code: 429, error_type: 'password_locked' });
    clock.advance(15 * 60);
  });

  it('50 concurrent wrong passwords: exactly max_failures are checked', async () => {
    const { email } = await signUp();
    checked = 0;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post('authenticate', { email, password: `burst-${i}-password` })),
    );
    expect(checked).toBe(5);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(45);
    clock.advance(15 * 60);
  });

  it('limits password checks per client IP; a public caller cannot dodge it with a body IP', async () => {
    await configure(t, { per_ip: { limit: 3, window_seconds: 600 } });
    const { email } = await signUp();
    const call = (ip: string, bodyIp: string) =>
      t.latchkey.fetch(
        new Request('http://latchkey.test/v1/auth/passwords/authenticate', {
          method: 'POST',
          headers: { authorization: `Bearer ${t.public_token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ email, password: STRONG, device_fingerprint: { ip: bodyIp } }),
        }),
        { clientIp: ip },
      );
    for (let i = 0; i < 3; i++) expect((await call('198.51.100.7', `10.0.0.${i}`)).status).toBe(200);
    const limited = await call('198.51.100.7', '10.0.0.99');
    expect(limited.status).toBe(429);
    expect((await limited.json()).error_type).toBe('rate_limited');
    expect((await call('198.51.100.8', '10.0.0.1')).status).toBe(200);
    await configure(t);
  });

  it('resets by email: allow-listed link, single use, verifies the email, ends other sessions', async () => {
    const { email, user_id, session_token } = await signUp();
    const start = await post(
      'email/reset/start',
      { email, reset_redirect_url: 'https://app.example.com/deep/r?x=1' },
      t.public_token,
    );
    expect(start.status).toBe(200);
    expect(start.body).toEqual({ email });
    const url = lastReset(email);
    expect(`${url.origin}${url.pathname}`).toBe('https://app.example.com/deep/r');
    expect(url.searchParams.get('x')).toBe('1');
    const token = url.searchParams.get('token')!;
    // The token is no magic link.
    const asLink = await t.call('POST', '/v1/auth/magic_links/authenticate', { token });
    expect(expectErrorShape(asLink).error_type).toBe('magic_link_not_found');
    // A weak password leaves the link usable.
    expect(expectErrorShape(await post('email/reset', { token, password: 'password1' })).error_type).toBe(
      'weak_password',
    );
    const reset = await post(
      'email/reset',
      { token, password: STRONG2, session_expires_in: 60 },
      t.public_token,
    );
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ user_id, session_token: expect.any(String) });
    expect(reset.body.session.factors[0]).toMatchObject({ type: 'magic_link', method: { email } });
    expect((await post('authenticate', { email, password: STRONG })).status).toBe(401);
    expect((await post('authenticate', { email, password: STRONG2 })).status).toBe(200);
    const old = await t.call('POST', '/v1/auth/sessions/authenticate', { session_token });
    expect(expectErrorShape(old).error_type).toBe('session_not_found');
    const fresh = await t.call('POST', '/v1/auth/sessions/authenticate', {
      session_token: reset.body.session_token,
    });
    expect(fresh.status).toBe(200);
    const again = await post('email/reset', { token, password: STRONG });
    expect(expectErrorShape(again)).toMatchObject({ status_code: 401, error_type: 'password_reset_used' });
    const user = await t.call('GET', `/v1/auth/users/${user_id}`);
    expect(user.body.emails[0].verified).toBe(true);
    expect(events.some((e) => e.type === 'password.changed' && e.data.reason === 'reset_by_email')).toBe(
      true,
    );
  });

  it('reset links: redirect allow-list, no enumeration, expiry, another App', async () => {
    const { email } = await signUp();
    const notAllowed = await post('email/reset/start', {
      email,
      reset_redirect_url: 'https://evil.example/reset',
    });
    expect(expectErrorShape(notAllowed)).toMatchObject({
      error_type: 'redirect_url_not_allowed',
      error_field: 'reset_redirect_url',
    });
    const dotDot = await post('email/reset/start', {
      email,
      reset_redirect_url: 'https://app.example.com/deep/..%2fadmin',
    });
    expect(expectErrorShape(dotDot).error_type).toBe('redirect_url_not_allowed');
    const before = sender.sent.length;
    const unknown = freshEmail();
    const nobody = await post('email/reset/start', { email: unknown });
    expect(nobody.status).toBe(200);
    expect(nobody.body).toEqual({ email: unknown });
    expect(sender.sent.length).toBe(before);

    await post('email/reset/start', { email, expiration_minutes: 5 });
    const token = lastReset(email).searchParams.get('token')!;
    const foreign = await other.call('POST', '/v1/auth/passwords/email/reset', { token, password: STRONG2 });
    expect(expectErrorShape(foreign)).toMatchObject({
      status_code: 404,
      error_type: 'password_reset_not_found',
    });
    clock.advance(5 * 60 + 1);
    const expired = await post('email/reset', { token, password: STRONG2 });
    expect(expectErrorShape(expired)).toMatchObject({
      status_code: 401,
      error_type: 'password_reset_expired',
    });
    const bogus = await post('email/reset', { token: 'x'.repeat(43), password: STRONG2 });
    expect(expectErrorShape(bogus).error_type).toBe('password_reset_not_found');
  });

  it('a reset link redeemed 20 times at once works exactly once', async () => {
    const { email } = await signUp();
    await post('email/reset/start', { email });
    const token = lastReset(email).searchParams.get('token')!;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => post('email/reset', { token, password: STRONG2 })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(new Set(answers.filter((a) => a.status !== 200).map((a) => a.body.error_type))).toEqual(
      new Set(['password_reset_used']),
    );
  });

  it('changes a password by the existing one, under the same lock-out', async () => {
    const { email, session_token } = await signUp();
    const wrong = await post('existing_password/reset', {
      email,
      existing_password: 'not-it-at-all',
      new_password: STRONG2,
    });
    expect(expectErrorShape(wrong).error_type).toBe('invalid_credentials');
    const weak = await post('existing_password/reset', {
      email,
      existing_password: STRONG,
      new_password: 'password1',
    });
    expect(expectErrorShape(weak)).toMatchObject({
      error_type: 'weak_password',
      error_field: 'new_password',
    });
    const ok = await post(
      'existing_password/reset',
      { email, existing_password: STRONG, new_password: STRONG2, session_expires_in: 60 },
      t.public_token,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.session.factors[0].type).toBe('password');
    expect((await post('authenticate', { email, password: STRONG2 })).status).toBe(200);
    const old = await t.call('POST', '/v1/auth/sessions/authenticate', { session_token });
    expect(old.status).toBe(401);
  });

  it('sets a password by a session whose last sign-in is recent, keeping that session and ending the others', async () => {
    const { email, session_token: older, user_id } = await signUp();
    const current = await post('authenticate', { email, password: STRONG, session_expires_in: 60 });
    const ok = await post(
      'session/reset',
      { session_token: current.body.session_token, password: STRONG2 },
      t.public_token,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.session.id).toBe(current.body.session.id);
    expect((await t.call('POST', '/v1/auth/sessions/authenticate', { session_token: older })).status).toBe(
      401,
    );
    const ended = events.filter((e) => e.type === 'session.revoked' && e.data.user_id === user_id);
    expect(ended.map((e) => e.data.reason)).toEqual(['password_change']);
    expect((await post('authenticate', { email, password: STRONG2 })).status).toBe(200);
    clock.advance(5 * 60 + 1);
    const stale = await post('session/reset', {
      session_token: current.body.session_token,
      password: STRONG,
    });
    expect(expectErrorShape(stale)).toMatchObject({
      status_code: 401,
      error_type: 'reauthentication_required',
    });
    const none = await post('session/reset', { session_token: 'lks_nothing', password: STRONG });
    expect(expectErrorShape(none).error_type).toBe('session_not_found');
  });

  it('keeps other sessions when the App turns revocation off', async () => {
    await configure(t, { revoke_sessions_on_change: false });
    const { email, session_token } = await signUp();
    await post('existing_password/reset', { email, existing_password: STRONG, new_password: STRONG2 });
    expect((await t.call('POST', '/v1/auth/sessions/authenticate', { session_token })).status).toBe(200);
    await configure(t);
  });

  it('migrates hashes made by outside tools, then rehashes each to Argon2id on the first sign-in', async () => {
    const password = 'imported-Passw0rd-from-elsewhere';
    const refs = referenceHashes(password);
    const cases = [
      { hash: refs.argon2, hash_type: 'argon2id' },
      { hash: refs.bcrypt, hash_type: 'bcrypt' },
      { hash: refs.pbkdf2, hash_type: 'pbkdf2_sha256' },
    ];
    for (const c of cases) {
      const email = freshEmail();
      const publicTry = await post('migrate', { email, ...c }, t.public_token);
      expect(expectErrorShape(publicTry).error_type).toBe('secret_key_required');
      const migrated = await post('migrate', { email, ...c });
      expect(migrated.status).toBe(200);
      expect(migrated.body).toMatchObject({ user_created: true, user_id: expect.stringMatching(/^user_/) });
      const before = await storage.passwords.get(t.app_id, migrated.body.user_id);
      expect(before?.hash).not.toMatch(/^\$argon2id\$v=19\$m=64,t=1,p=1\$/);
      expect((await post('authenticate', { email, password: `${password}x` })).status).toBe(401);
      expect((await post('authenticate', { email, password })).status).toBe(200);
      const after = await storage.passwords.get(t.app_id, migrated.body.user_id);
      expect(after?.hash).toMatch(/^\$argon2id\$v=19\$m=64,t=1,p=1\$/);
      expect((await post('authenticate', { email, password })).status).toBe(200);
      expect((await storage.passwords.get(t.app_id, migrated.body.user_id))?.hash).toBe(after?.hash);
    }
    // Migrating onto an existing user replaces the password and keeps the user.
    const { email, user_id } = await signUp();
    const onto = await post('migrate', { email, hash: refs.bcrypt, hash_type: 'bcrypt' });
    expect(onto.body).toEqual({ user_id, email_id: expect.any(String), user_created: false });
    expect((await post('authenticate', { email, password })).status).toBe(200);
  });

  it('answers bad input of every shape with a documented 4xx', async () => {
    const email = freshEmail();
    const cases: [string, unknown, string, string?][] = [
      ['authenticate', {}, 'missing_field'],
      ['authenticate', { email }, 'missing_field', 'password'],
      ['authenticate', { email, password: 7 }, 'invalid_field', 'password'],
      ['authenticate', { email, password: '' }, 'invalid_field', 'password'],
      ['authenticate', { email, password: 'x'.repeat(257) }, 'invalid_field', 'password'],
      ['authenticate', { email: 'not-an-email', password: STRONG }, 'invalid_email', 'email'],
      ['authenticate', { email, password: STRONG, extra: 1 }, 'unknown_field'],
      ['authenticate', [email], 'invalid_field'],
      ['create', { email, password: STRONG, session_expires_in: 1 }, 'invalid_field', 'session_expires_in'],
      ['email/reset/start', { email, expiration_minutes: 0 }, 'invalid_field', 'expiration_minutes'],
      ['email/reset', { token: '', password: STRONG }, 'invalid_field', 'token'],
      ['session/reset', { password: STRONG }, 'missing_field'],
      ['migrate', { email, hash: 'abc', hash_type: 'rot13' }, 'invalid_field', 'hash_type'],
      [
        'migrate',
        { email, hash: 'd41d8cd98f00b204e9800998ecf8427e', hash_type: 'md5' },
        'invalid_field',
        'salt',
      ],
      ['migrate', { email, hash: '$2b$04$short', hash_type: 'bcrypt' }, 'invalid_field', 'hash'],
      [
        'migrate',
        { email, hash: '$argon2i$v=19$m=16,t=2,p=1$c29tZXNhbHQ$aGFzaA', hash_type: 'argon2id' },
        'invalid_field',
        'hash',
      ],
    ];
    for (const [path, body, type, field] of cases) {
      const res = await post(path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      const err = expectErrorShape(res);
      expect(err.error_type, `${path} ${JSON.stringify(body)}`).toBe(type);
      if (field) expect(err.error_field, `${path} ${JSON.stringify(body)}`).toBe(field);
    }
    // Nothing was half-written by the refused migrations.
    expect(await storage.emails.findByAddress(t.app_id, email)).toBeNull();
  });
});
