import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appSettingsSchema, createLatchkey, type Storage } from '../src/index.js';
import {
  capturingSender,
  expectErrorShape,
  TEST_SECRET,
  type TestApp,
  testApp,
  testLatchkey,
} from './helpers.js';
import { storageBackends } from './storage-backends.js';

const send = (t: Awaited<ReturnType<typeof testApp>>, url: string) =>
  t.call(
    'POST',
    '/v1/auth/magic_links/email/login_or_create',
    { email: 'settings@example.com', login_redirect_url: url, signup_redirect_url: url },
    t.public_token,
  );

describe('App settings over HTTP', () => {
  it('reads the App without its key hashes', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const res = await t.call('GET', '/v1/app');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ app_id: t.app_id, name: 'Test App' });
    expect(res.body.settings.otp.expires_in_minutes).toBe(10);
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/hash|sk_|pk_/);
  });

  it('a newly allowed redirect URL works at once; one left out is still refused', async () => {
    const t = await testApp(testLatchkey().latchkey);
    expect(expectErrorShape(await send(t, 'https://a.example/cb')).error_type).toBe(
      'redirect_url_not_allowed',
    );
    const patched = await t.call('PATCH', '/v1/app/settings', {
      redirect_urls: { login: ['https://a.example/cb'], signup: ['https://a.example/cb'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.settings.redirect_urls.login).toEqual(['https://a.example/cb']);
    expect((await send(t, 'https://a.example/cb')).status).toBe(200);
    expect(expectErrorShape(await send(t, 'https://b.example/cb')).error_type).toBe(
      'redirect_url_not_allowed',
    );
  });

  it('changes only the given fields, and null resets a field to its default', async () => {
    const t = await testApp(testLatchkey().latchkey);
    await t.call('PATCH', '/v1/app/settings', { otp: { expires_in_minutes: 3, max_attempts: 7 } });
    const one = await t.call('PATCH', '/v1/app/settings', { otp: { max_attempts: 2 } });
    expect(one.body.settings.otp).toMatchObject({ expires_in_minutes: 3, max_attempts: 2 });
    const reset = await t.call('PATCH', '/v1/app/settings', { otp: { expires_in_minutes: null } });
    expect(reset.body.settings.otp).toMatchObject({ expires_in_minutes: 10, max_attempts: 2 });
    expect((await t.latchkey.apps.get(t.app_id)).settings.otp.max_attempts).toBe(2);
  });

  it('refuses unknown and invalid settings naming the field, and changes nothing', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const before = (await t.call('GET', '/v1/app')).body;
    const cases: Array<[unknown, string, string]> = [
      [{ sesions: { jwt_lifetime_seconds: 60 } }, 'unknown_field', 'sesions'],
      [{ sessions: { jwt_lifetime: 60 } }, 'unknown_field', 'sessions.jwt_lifetime'],
      // Names an Object.prototype member, not a setting of the object's schema.
      [{ otp: { toString: 1 } }, 'unknown_field', 'otp.toString'],
      [{ hasOwnProperty: {} }, 'unknown_field', 'hasOwnProperty'],
      [{ otp: { expires_in_minutes: 61 } }, 'invalid_field', 'otp.expires_in_minutes'],
      [{ redirect_urls: { login: ['not a url'] } }, 'invalid_field', 'redirect_urls.login.0'],
      [
        { rate_limits: { routes: { 'POST /v1/x': { limit: 0, window_seconds: 1 } } } },
        'invalid_field',
        'rate_limits.routes.POST /v1/x.limit',
      ],
    ];
    for (const [patch, type, field] of cases) {
      const err = expectErrorShape(await t.call('PATCH', '/v1/app/settings', patch));
      expect([err.status_code, err.error_type, err.error_field]).toEqual([400, type, field]);
    }
    for (const body of [[], 'x', 3]) {
      expect((await t.call('PATCH', '/v1/app/settings', body)).status).toBe(400);
    }
    expect((await t.call('GET', '/v1/app')).body).toEqual(before);
  });

  it('needs the secret key, and each App sees only itself', async () => {
    const { latchkey } = testLatchkey();
    const a = await testApp(latchkey);
    const b = await testApp(latchkey);
    expect(expectErrorShape(await a.call('GET', '/v1/app', undefined, a.public_token)).status_code).toBe(403);
    expect((await a.call('PATCH', '/v1/app/settings', { otp: {} }, a.public_token)).status).toBe(403);
    expect((await a.call('GET', '/v1/app', undefined, null)).status).toBe(401);
    await b.call('PATCH', '/v1/app/settings', { otp: { max_attempts: 9 } });
    expect((await a.call('GET', '/v1/app')).body.settings.otp.max_attempts).toBe(5);
    expect((await b.call('GET', '/v1/app')).body).toMatchObject({ app_id: b.app_id });
  });

  it('exposes the same patch in code, and destructured service methods work', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const { patchSettings, rotateSecretKey } = t.latchkey.apps;
    const app = await patchSettings(t.app_id, { passwords: { min_score: 4 } });
    expect(app.settings.passwords.min_score).toBe(4);
    const { secret_key } = await rotateSecretKey(t.app_id);
    expect((await t.call('GET', '/v1/app', undefined, secret_key)).status).toBe(200);
  });
});

/** A patch of one field at `path` (dotted) to `value`. */
const patchAt = (path: string, value: unknown): Record<string, unknown> =>
  path.split('.').reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;

/** Unsafe values, each refused naming the field: [field path, patch value, field named]. */
const unsafe: Array<[string, unknown, string]> = [
  ...[
    'javascript:alert(document.cookie)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'blob:https://app.example.com/0f3c',
    'vbscript:msgbox(1)',
    'about:blank',
    'filesystem:https://app.example.com/temporary/x',
    'https://*',
    'https://*/cb',
    'https://*.example.com/cb',
    'https://com/cb',
    'https://co.uk/cb',
    'https://github.io/cb',
    'https:///cb',
    'https://93.184.216.34/cb',
    'http://app.example.com/cb',
    'http://localhost.evil.com/cb',
    'http://notlocalhost/cb',
    'http://128.0.0.1/cb',
    'https://user:pw@app.example.com/cb',
    'https://user@app.example.com/cb',
    'https://app.example.com/cb#frag',
    'https://app.example.com/cb#',
    'https://app.example.com\\cb',
    'myapp://cb',
    'com.example.app:/callback',
    `https://app.example.com/${'x'.repeat(1980)}`,
  ].map((url): [string, unknown, string] => ['redirect_urls.login', [url], 'redirect_urls.login.0']),
  ['redirect_urls.signup', ['https://app.example.com/ok', 'javascript:alert(1)'], 'redirect_urls.signup.1'],
  ['redirect_urls.login', ['https://*/*'], 'redirect_urls.login.0'],
  ['redirect_urls.default_login', 'javascript:alert(1)', 'redirect_urls.default_login'],
  ['redirect_urls.default_signup', 'data:text/html,hi', 'redirect_urls.default_signup'],
  ['redirect_urls.default_login', 'https://app.example.com/cb/*', 'redirect_urls.default_login'],
  ...['*', 'com', 'co.uk', 'github.io', '<script>', '127.0.0.1', '[::1]', 'example.com.', 'a..example.com']
    .concat([
      'bücher.example',
      '-a.example.com',
      `${'x'.repeat(64)}.example.com`,
      'intranet',
      'ex ample.com',
      'example.123',
    ])
    .map((d): [string, unknown, string] => [
      'webauthn.allowed_domains',
      ['example.com', d],
      'webauthn.allowed_domains.1',
    ]),
  ...['https://*', 'https://com', 'https://co.uk', 'http://app.example.com', 'https://93.184.216.34']
    .concat(['ws://app.example.com', 'https://[2001:db8::1]'])
    .map((o): [string, unknown, string] => ['cors.allowed_origins', [o], 'cors.allowed_origins.0']),
  ['wallet_auth.domain', 'com', 'wallet_auth.domain'],
  ['wallet_auth.domain', 'co.uk:443', 'wallet_auth.domain'],
  ['wallet_auth.domain', '93.184.216.34', 'wallet_auth.domain'],
  ['wallet_auth.domain', 'app.example.com:70000', 'wallet_auth.domain'],
  ['wallet_auth.uri', 'javascript:alert(1)', 'wallet_auth.uri'],
  ['wallet_auth.uri', 'http://app.example.com/login', 'wallet_auth.uri'],
  ['webauthn.rp_name', 'x'.repeat(201), 'webauthn.rp_name'],
];

/** The documented limits, each one over: [patch, field named]. */
const route = (i: number) => `POST /v1/r${i}`;
const overLimits: Array<[Record<string, unknown>, string]> = [
  [patchAt('redirect_urls.login', urls(51)), 'redirect_urls.login'],
  [patchAt('redirect_urls.signup', urls(51)), 'redirect_urls.signup'],
  [patchAt('webauthn.allowed_domains', domains(51)), 'webauthn.allowed_domains'],
  [
    patchAt(
      'rate_limits.routes',
      Object.fromEntries(Array.from({ length: 201 }, (_, i) => [route(i), { limit: 1, window_seconds: 1 }])),
    ),
    'rate_limits.routes',
  ],
  [
    patchAt('rate_limits.routes', { [`POST /v1/${'a'.repeat(192)}`]: { limit: 1, window_seconds: 1 } }),
    `rate_limits.routes.POST /v1/${'a'.repeat(192)}`,
  ],
];

function urls(n: number) {
  return Array.from({ length: n }, (_, i) => `https://app.example.com/cb/${i}`);
}
function domains(n: number) {
  return Array.from({ length: n }, (_, i) => `d${i}.example.com`);
}

/** Raw JSON bodies whose prototype keys JSON.parse keeps as ordinary keys: [body, field named]. */
const prototypeKeys: Array<[string, string]> = [
  ['{"rate_limits":{"routes":{"__proto__":{"limit":1,"window_seconds":1}}}}', 'rate_limits.routes.__proto__'],
  [
    '{"rate_limits":{"routes":{"POST /v1/x":{"limit":1,"window_seconds":1,"__proto__":{"by":"app"}}}}}',
    'rate_limits.routes.POST /v1/x.__proto__',
  ],
  [
    '{"rate_limits":{"routes":{"constructor":{"limit":1,"window_seconds":1}}}}',
    'rate_limits.routes.constructor',
  ],
  ['{"__proto__":{"otp":{"max_attempts":1}}}', '__proto__'],
  ['{"otp":{"prototype":{}}}', 'otp.prototype'],
  [
    '{"rate_limits":{"routes":{"POST /v1/x":{"limit":1,"window_seconds":1,"constructor":{}}}}}',
    'rate_limits.routes.POST /v1/x.constructor',
  ],
  [
    '{"rate_limits":{"routes":{"POST /v1/x":{"limit":1,"window_seconds":1,"prototype":1}}}}',
    'rate_limits.routes.POST /v1/x.prototype',
  ],
];

describe('unsafe and unbounded settings are refused on write (issue 31)', () => {
  it('over HTTP: every unsafe value answers 400 invalid_field naming the field, and changes nothing', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const before = (await t.call('GET', '/v1/app')).body;
    for (const [path, value, field] of unsafe) {
      const res = await t.call('PATCH', '/v1/app/settings', patchAt(path, value));
      const err = expectErrorShape(res);
      expect(
        [err.status_code, err.error_type, err.error_field],
        `${path} = ${JSON.stringify(value)}`,
      ).toEqual([400, 'invalid_field', field]);
    }
    expect((await t.call('GET', '/v1/app')).body).toEqual(before);
  });

  it('through the service: patchSettings, updateSettings and create refuse the same values', async () => {
    const t = await testApp(testLatchkey().latchkey);
    for (const [path, value, field] of unsafe) {
      const settings = patchAt(path, value);
      const seen = `${path} = ${JSON.stringify(value)}`;
      await expect(t.latchkey.apps.patchSettings(t.app_id, settings), `patch ${seen}`).rejects.toMatchObject({
        errorType: 'invalid_field',
        field,
      });
      await expect(
        t.latchkey.apps.updateSettings(t.app_id, settings),
        `update ${seen}`,
      ).rejects.toMatchObject({
        errorType: 'invalid_field',
        field,
      });
      await expect(t.latchkey.apps.create({ name: 'Bad', settings }), seen).rejects.toMatchObject({
        errorType: 'invalid_field',
        field: `settings.${field}`,
      });
    }
    expect(await t.latchkey.apps.list()).toHaveLength(1);
  });

  it('accepts the safe forms: https on registrable domains, http on loopback, path wildcards', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const settings = {
      redirect_urls: {
        login: [
          'https://app.example.com/cb',
          'https://app.example.com/auth/*',
          'https://login.example.co.uk/cb?from=mail',
          'https://me.github.io/cb',
          'https://xn--bcher-kva.example/cb',
          'http://localhost:3000/cb',
          'http://app.localhost/cb',
          'http://127.0.0.1:8080/cb',
          'http://[::1]:3000/cb',
        ],
        signup: ['https://Example.COM/cb'],
        default_login: 'https://app.example.com/cb',
      },
      webauthn: {
        rp_name: 'x'.repeat(200),
        allowed_domains: ['localhost', 'example.com', 'login.example.co.uk', 'me.github.io', 'Example.org'],
      },
      cors: {
        allowed_origins: ['https://app.example.com', 'http://localhost:5173', 'http://127.0.0.1:3000'],
      },
      wallet_auth: { domain: 'app.example.com:8443', uri: 'https://app.example.com/login' },
    };
    const res = await t.call('PATCH', '/v1/app/settings', settings);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.settings).toMatchObject(settings);
    for (const domain of ['localhost:5173', '127.0.0.1:3000', '[::1]:3000', 'localhost']) {
      const ok = await t.call('PATCH', '/v1/app/settings', { wallet_auth: { domain } });
      expect(ok.status, domain).toBe(200);
    }
  });

  it('holds every list at its documented length: the limit is accepted, one more is refused', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const atLimits = {
      redirect_urls: { login: urls(50), signup: urls(50) },
      webauthn: { allowed_domains: domains(50) },
      rate_limits: {
        routes: Object.fromEntries(
          Array.from({ length: 200 }, (_, i) => [
            i === 0 ? `POST /v1/${'a'.repeat(191)}` : route(i),
            { limit: 1, window_seconds: 1 },
          ]),
        ),
      },
    };
    const ok = await t.call('PATCH', '/v1/app/settings', atLimits);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const fresh = await testApp(t.latchkey);
    for (const [patch, field] of overLimits) {
      const err = expectErrorShape(await fresh.call('PATCH', '/v1/app/settings', patch));
      expect([err.error_type, err.error_field], field).toEqual(['invalid_field', field]);
      expect(err.error_message).toMatch(/at most \d+/);
    }
  });

  it('bounds the whole document at 131072 characters of JSON, and the largest one reads back whole', async () => {
    const t = await testApp(testLatchkey().latchkey);
    // Message texts at their own maxima, quotes doubling in JSON: valid field by field, too big in all.
    const quoted = (n: number) => '"'.repeat(n);
    const big = {
      messages: {
        otp_email_text: quoted(10_000),
        magic_link_email_text: quoted(10_000),
        magic_link_email_html: quoted(20_000),
      },
      redirect_urls: { login: urls(50).map((u) => `${u}/${'p'.repeat(1900)}`) },
    };
    const err = expectErrorShape(await t.call('PATCH', '/v1/app/settings', big));
    expect([err.status_code, err.error_type]).toEqual([400, 'invalid_field']);
    expect(err.error_message).toMatch(/characters of JSON; at most 131072/);
    await expect(t.latchkey.apps.create({ name: 'Big', settings: big })).rejects.toMatchObject({
      errorType: 'invalid_field',
      field: 'settings',
    });
    // Just under the bound: accepted, stored and read back as written.
    const fits = { ...big, redirect_urls: { login: big.redirect_urls.login.slice(0, 20) } };
    const res = await t.call('PATCH', '/v1/app/settings', fits);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    const size = JSON.stringify(res.body.settings).length;
    expect(size).toBeGreaterThan(100_000);
    expect(size).toBeLessThanOrEqual(131_072);
    expect((await t.call('GET', '/v1/app')).body.settings).toEqual(res.body.settings);
  });

  /** Settings of about 125 000 characters of JSON plus `n`, valid field by field. */
  const sized = (n: number) => ({
    messages: {
      magic_link_email_html: 'h'.repeat(20_000),
      magic_link_email_text: 'm'.repeat(10_000),
      otp_email_text: 't'.repeat(n),
    },
    redirect_urls: { login: urls(49).map((u) => `${u}/${'p'.repeat(1900)}`) },
  });

  it('the document bound is exact: 131072 characters of JSON accepted, 131073 refused', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const probe = await t.call('PATCH', '/v1/app/settings', sized(1000));
    expect(probe.status).toBe(200);
    const n = 1000 + 131_072 - JSON.stringify(probe.body.settings).length;
    const exact = await t.call('PATCH', '/v1/app/settings', sized(n));
    expect(exact.status, JSON.stringify(exact.body).slice(0, 200)).toBe(200);
    expect(JSON.stringify(exact.body.settings)).toHaveLength(131_072);
    const over = expectErrorShape(await t.call('PATCH', '/v1/app/settings', sized(n + 1)));
    expect([over.error_type, over.error_field]).toEqual(['invalid_field', undefined]);
    expect(over.error_message).toContain('131073 characters of JSON; at most 131072');
    expect((await t.call('GET', '/v1/app')).body.settings).toEqual(exact.body.settings);
  });

  it('measures the input before parsing it, and the stored document after defaults are added', async () => {
    const t = await testApp(testLatchkey().latchkey);
    // Unknown keys are dropped by the schema for direct callers: an input this large is refused all the same.
    const padded = { otp: { max_attempts: 3 }, padding: 'x'.repeat(140_000) };
    await expect(t.latchkey.apps.updateSettings(t.app_id, padded as never)).rejects.toMatchObject({
      errorType: 'invalid_field',
      message: expect.stringContaining('at most 131072'),
    });
    // Under the bound as given, over it once every default is filled in.
    const sparse = sized(131_062 - JSON.stringify(sized(0)).length);
    expect(JSON.stringify(sparse)).toHaveLength(131_062);
    await expect(t.latchkey.apps.updateSettings(t.app_id, sparse)).rejects.toMatchObject({
      errorType: 'invalid_field',
      message: expect.stringContaining('at most 131072'),
    });
  });

  it('a direct caller passing what is not JSON data gets the typed 400, not a TypeError', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(t.latchkey.apps.updateSettings(t.app_id, { otp: cyclic } as never)).rejects.toMatchObject({
      errorType: 'invalid_field',
    });
    await expect(
      t.latchkey.apps.updateSettings(t.app_id, { otp: { max_attempts: 3n } } as never),
    ).rejects.toMatchObject({ errorType: 'invalid_field', message: 'The settings must be JSON data.' });
    const single = await t.call('PATCH', '/v1/app/settings', { webauthn: { allowed_domains: ['intranet'] } });
    expect(single.body.error_message).toContain('single label');
  });

  it('tells a malformed host from a public suffix', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const message = async (domain: string) =>
      (await t.call('PATCH', '/v1/app/settings', { webauthn: { allowed_domains: [domain] } })).body
        .error_message;
    for (const bad of [
      '<script>.example.com',
      '*.example.com',
      `${'x'.repeat(64)}.example.com`,
      'a_b.example.com',
    ])
      expect(await message(bad), bad).toContain('is not a host name');
    for (const suffix of ['co.uk', 'github.io'])
      expect(await message(suffix), suffix).toContain('public suffix');
    expect(await message('10.0.0.1')).toContain('is an IP address');
  });

  it('refuses __proto__, constructor and prototype keys anywhere in a patch, naming the field', async () => {
    const t = await testApp(testLatchkey().latchkey);
    for (const [body, field] of prototypeKeys) {
      const res = await t.call('PATCH', '/v1/app/settings', JSON.parse(body));
      const err = expectErrorShape(res);
      // Where the schema names its keys such a key is an unknown setting; among free keys (route
      // rules) it is an invalid one. Either way it is refused, never merged or dropped.
      const errorType = field.startsWith('rate_limits.routes.') ? 'invalid_field' : 'unknown_field';
      expect([err.status_code, err.error_type, err.error_field], body).toEqual([400, errorType, field]);
      await expect(t.latchkey.apps.patchSettings(t.app_id, JSON.parse(body)), body).rejects.toMatchObject({
        errorType,
        field,
      });
    }
    const { settings } = await t.latchkey.apps.get(t.app_id);
    expect(settings.rate_limits.routes).toEqual({});
    expect(Object.getPrototypeOf(settings.rate_limits.routes)).toBe(Object.prototype);
  });
});

/**
 * Every documented bound of docs/settings.md, held at its edge: the limit itself is accepted,
 * one past it is refused naming the field. [field, lowest, highest] for whole numbers.
 */
const numberRanges: Array<[string, number, number]> = [
  ...['per_destination', 'per_app', 'per_app_sms', 'public_routes.verify', 'public_routes.send']
    .concat(['public_routes.compute'])
    .flatMap(
      (rule): Array<[string, number, number]> => [
        [`rate_limits.${rule}.limit`, 1, 1_000_000],
        [`rate_limits.${rule}.window_seconds`, 1, 86_400],
      ],
    ),
  ['sessions.jwt_lifetime_seconds', 30, 3600],
  ['sessions.activity_update_seconds', 0, 86_400],
  ['sessions.step_up_minutes', 1, 1440],
  ['otp.expires_in_minutes', 1, 60],
  ['otp.max_attempts', 1, 20],
  ['totp.max_failures', 1, 100],
  ['totp.recovery_max_failures', 1, 100],
  ['totp.lockout_minutes', 1, 1440],
  ['magic_links.max_attempts', 1, 20],
  ['wallet_auth.challenge_ttl_seconds', 30, 3600],
  ['wallet_auth.ethereum_chain_id', 1, Number.MAX_SAFE_INTEGER],
  ['passwords.min_score', 0, 4],
];

/** [field, a valid value of exactly `max` characters, max, fewest characters]. */
const textLengths: Array<[string, (n: number) => string, number, number]> = [
  ['webauthn.rp_name', (n) => 'r'.repeat(n), 200, 1],
  ['messages.otp_sms', (n) => 's'.repeat(n), 320, 1],
  ['messages.otp_email_subject', (n) => 's'.repeat(n), 200, 1],
  ['messages.otp_email_text', (n) => 't'.repeat(n), 10_000, 1],
  ['messages.magic_link_email_subject', (n) => 's'.repeat(n), 200, 1],
  ['messages.magic_link_email_text', (n) => 't'.repeat(n), 10_000, 1],
  ['messages.magic_link_email_html', (n) => 'h'.repeat(n), 20_000, 1],
  ['wallet_auth.statement', (n) => 'w'.repeat(n), 300, 0],
  ['wallet_auth.uri', (n) => `https://app.example.com/${'u'.repeat(n - 24)}`, 2000, 0],
  ['redirect_urls.default_login', (n) => `https://app.example.com/${'u'.repeat(n - 24)}`, 2000, 0],
  ['wallet_auth.domain', (n) => `${'a.'.repeat((n - 11) / 2)}example.com`, 253, 0],
];

/** [field, one valid entry, most entries, the field named one past it]. */
const listCounts: Array<[string, (i: number) => unknown, number]> = [
  ['redirect_urls.login', (i) => `https://app.example.com/${i}`, 50],
  ['redirect_urls.signup', (i) => `https://app.example.com/${i}`, 50],
  ['webauthn.allowed_domains', (i) => `d${i}.example.com`, 50],
  ['cors.allowed_origins', (i) => `https://d${i}.example.com`, 100],
  ['sms.allowed_calling_codes', () => '44', 300],
  ['sms.refused_number_types', () => 'premium_rate', 20],
];

describe('every settings limit holds at its edge (docs/settings.md)', () => {
  const expectRefused = async (t: TestApp, path: string, value: unknown, field = path) => {
    const res = await t.call('PATCH', '/v1/app/settings', patchAt(path, value));
    expect(res.status, `${path} = ${JSON.stringify(value).slice(0, 60)}`).toBe(400);
    expect([res.body.error_type, res.body.error_field]).toEqual(['invalid_field', field]);
  };
  const expectAccepted = async (t: TestApp, path: string, value: unknown) => {
    const res = await t.call('PATCH', '/v1/app/settings', patchAt(path, value));
    expect(
      res.status,
      `${path} = ${JSON.stringify(value).slice(0, 60)}: ${JSON.stringify(res.body).slice(0, 200)}`,
    ).toBe(200);
  };

  it('whole numbers: lowest and highest accepted, one beyond either refused', async () => {
    const t = await testApp(testLatchkey().latchkey);
    for (const [path, lowest, highest] of numberRanges) {
      await expectAccepted(t, path, lowest);
      await expectAccepted(t, path, highest);
      await expectRefused(t, path, lowest - 1);
      await expectRefused(t, path, highest + 1);
      await expectRefused(t, path, lowest + 0.5);
    }
    // A per-route rule holds the same ranges, and its `by` field name at most 64 characters.
    const routes = (rule: Record<string, unknown>) => ({
      'POST /v1/x': { limit: 1, window_seconds: 1, ...rule },
    });
    await expectAccepted(t, 'rate_limits.routes', routes({ limit: 1_000_000, window_seconds: 86_400 }));
    await expectRefused(
      t,
      'rate_limits.routes',
      routes({ limit: 1_000_001 }),
      'rate_limits.routes.POST /v1/x.limit',
    );
    await expectRefused(
      t,
      'rate_limits.routes',
      routes({ window_seconds: 86_401 }),
      'rate_limits.routes.POST /v1/x.window_seconds',
    );
    await expectRefused(
      t,
      'rate_limits.routes',
      routes({ window_seconds: 0 }),
      'rate_limits.routes.POST /v1/x.window_seconds',
    );
    await expectAccepted(t, 'rate_limits.routes', routes({ by: `body.${'f'.repeat(64)}` }));
    await expectRefused(
      t,
      'rate_limits.routes',
      routes({ by: `body.${'f'.repeat(65)}` }),
      'rate_limits.routes.POST /v1/x.by',
    );
  });

  it('texts: the longest accepted, one character more refused, and an empty one where one is required', async () => {
    const t = await testApp(testLatchkey().latchkey);
    for (const [path, text, max, fewest] of textLengths) {
      expect(text(max)).toHaveLength(max);
      await expectAccepted(t, path, text(max));
      await expectRefused(t, path, path === 'wallet_auth.domain' ? `a${text(max)}` : `${text(max)}x`);
      if (fewest > 0) await expectRefused(t, path, '');
    }
    await expect(t.latchkey.apps.create({ name: 'n'.repeat(200) })).resolves.toBeDefined();
    await expect(t.latchkey.apps.create({ name: 'n'.repeat(201) })).rejects.toMatchObject({ field: 'name' });
  });

  it('host names: 253 characters and 63 per label at most', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const longest = `${'a.'.repeat(121)}example.com`;
    expect(longest).toHaveLength(253);
    await expectAccepted(t, 'webauthn.allowed_domains', [longest, `${'l'.repeat(63)}.example.com`]);
    await expectRefused(t, 'webauthn.allowed_domains', [`a${longest}`], 'webauthn.allowed_domains.0');
    await expectRefused(
      t,
      'webauthn.allowed_domains',
      [`${'l'.repeat(64)}.example.com`],
      'webauthn.allowed_domains.0',
    );
    await expectAccepted(t, 'redirect_urls.login', [`https://${longest}/cb`]);
    await expectRefused(t, 'redirect_urls.login', [`https://a${longest}/cb`], 'redirect_urls.login.0');
  });

  it('lists: the most entries accepted, one more refused', async () => {
    const t = await testApp(testLatchkey().latchkey);
    for (const [path, entry, max] of listCounts) {
      const list = Array.from({ length: max + 1 }, (_, i) => entry(i));
      await expectAccepted(t, path, list.slice(0, max));
      await expectRefused(t, path, list);
    }
  });

  it('ports: 1 to 65535 in wallet_auth.domain', async () => {
    const t = await testApp(testLatchkey().latchkey);
    await expectAccepted(t, 'wallet_auth.domain', 'app.example.com:1');
    await expectAccepted(t, 'wallet_auth.domain', 'app.example.com:65535');
    await expectRefused(t, 'wallet_auth.domain', 'app.example.com:0');
    await expectRefused(t, 'wallet_auth.domain', 'app.example.com:65536');
    // 253 characters with the port: the host alone may be at most that long as well.
    const host = `${'a.'.repeat(119)}xexample.com`;
    await expectAccepted(t, 'wallet_auth.domain', `${host}:44`);
    await expectRefused(t, 'wallet_auth.domain', `${host}:443`);
  });
});

/** The patch is written through the storage adapter and read back by the next request on it. */
describe.each(storageBackends())('App settings over HTTP on $name', (backend) => {
  let t: TestApp;
  let storage: Storage;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    storage = opened.storage;
    t = await testApp(
      createLatchkey({ storage: opened.storage, secret: TEST_SECRET, sender: capturingSender() }),
    );
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('a newly allowed redirect URL works; one left out is still refused; a bad patch changes nothing', async () => {
    expect(expectErrorShape(await send(t, 'https://a.example/cb')).error_type).toBe(
      'redirect_url_not_allowed',
    );
    const patch = { redirect_urls: { login: ['https://a.example/cb'], signup: ['https://a.example/cb'] } };
    expect((await t.call('PATCH', '/v1/app/settings', patch)).status).toBe(200);
    expect((await send(t, 'https://a.example/cb')).status).toBe(200);
    expect(expectErrorShape(await send(t, 'https://b.example/cb')).error_type).toBe(
      'redirect_url_not_allowed',
    );
    const bad = await t.call('PATCH', '/v1/app/settings', {
      redirect_urls: { login: ['https://b.example/cb', 'nope'] },
    });
    expect(expectErrorShape(bad).error_field).toBe('redirect_urls.login.1');
    expect((await t.latchkey.apps.get(t.app_id)).settings.redirect_urls.login).toEqual([
      'https://a.example/cb',
    ]);
  });

  it('settings stored before the write rules still load; the next write names the field to fix', async () => {
    const old = appSettingsSchema.parse({
      redirect_urls: { login: ['javascript:alert(1)', ...urls(60)], default_login: 'data:text/html,hi' },
      webauthn: { allowed_domains: ['*', 'com', '<script>'] },
    });
    await storage.apps.update(t.app_id, { settings: old, updated_at: 1 });
    const read = await t.call('GET', '/v1/app');
    expect(read.status).toBe(200);
    expect(read.body.settings.redirect_urls.login).toHaveLength(61);
    expect(read.body.settings.webauthn.allowed_domains).toEqual(['*', 'com', '<script>']);
    const other = expectErrorShape(await t.call('PATCH', '/v1/app/settings', { otp: { max_attempts: 3 } }));
    expect([other.error_type, other.error_field]).toEqual(['invalid_field', 'redirect_urls.login']);
    const fixed = await t.call('PATCH', '/v1/app/settings', {
      otp: { max_attempts: 3 },
      redirect_urls: { login: ['https://a.example/cb'], default_login: null },
      webauthn: { allowed_domains: ['a.example'] },
    });
    expect(fixed.status, JSON.stringify(fixed.body).slice(0, 300)).toBe(200);
    expect((await storage.apps.get(t.app_id))?.settings).toMatchObject({
      otp: { max_attempts: 3 },
      redirect_urls: { login: ['https://a.example/cb'] },
      webauthn: { allowed_domains: ['a.example'] },
    });
  });
});
