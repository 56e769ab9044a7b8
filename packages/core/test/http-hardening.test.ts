import { appSettingsSchema, type RouteClass, type Storage } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { describe, expect, it } from 'vitest';
import { expectErrorShape, testApp, testLatchkey } from './helpers.js';

const ORIGIN = 'https://app.example.com';

async function request(
  t: { latchkey: { fetch: (r: Request, env?: { clientIp?: string }) => Promise<Response> } },
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: unknown; ip?: string } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await t.latchkey.fetch(
    new Request(`http://latchkey.test${path}`, {
      method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }),
    init.ip ? { clientIp: init.ip } : {},
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('security headers', () => {
  it('are on every answer: success, error, unknown route, open routes', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const user = await t.call('POST', '/v1/auth/users', { email: 'h@example.com' });
    const answers = [
      user,
      await t.call('GET', '/v1/auth/users/user_nope'),
      await t.call('GET', '/v1/nowhere'),
      await t.call('GET', '/v1/health', undefined, null),
      await t.call('GET', '/v1/openapi.json', undefined, null),
      await t.call('POST', '/v1/auth/users', { email: 'h@example.com' }, null),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 404, 404, 200, 200, 401]);
    for (const a of answers) {
      expect(a.headers.get('x-content-type-options')).toBe('nosniff');
      expect(a.headers.get('x-frame-options')).toBe('DENY');
      expect(a.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(a.headers.get('referrer-policy')).toBe('no-referrer');
      expect(a.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('leave a route its own Cache-Control (the public JWKS may be cached)', async () => {
    const t = await testApp(testLatchkey().latchkey);
    const res = await t.call('GET', `/v1/auth/sessions/jwks/${t.app_id}`, undefined, null);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('CORS on the public-token routes', () => {
  async function setup() {
    const { latchkey } = testLatchkey();
    const a = await testApp(latchkey);
    await latchkey.apps.updateSettings(a.app_id, { cors: { allowed_origins: [ORIGIN] } });
    const b = await testApp(latchkey);
    await latchkey.apps.updateSettings(b.app_id, { cors: { allowed_origins: ['https://b.example.org'] } });
    return { latchkey, a, b };
  }
  const preflight = (origin: string, method = 'POST') => ({
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': 'authorization, content-type',
  });

  it('answers a preflight without a key, allowing only a listed origin, never *', async () => {
    const { a } = await setup();
    const ok = await request(a, 'OPTIONS', '/v1/auth/otps/verify', { headers: preflight(ORIGIN) });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(ok.headers.get('access-control-allow-methods')).toBe('POST');
    expect(ok.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    expect(ok.headers.get('vary')).toContain('Origin');

    for (const [path, origin, method] of [
      ['/v1/auth/otps/verify', 'https://evil.example.net', 'POST'],
      ['/v1/auth/otps/verify', `${ORIGIN}:8443`, 'POST'],
      ['/v1/auth/otps/verify', 'null', 'POST'],
      // Secret-key routes are never for browsers.
      ['/v1/auth/users', ORIGIN, 'POST'],
      ['/v1/wallets/create', ORIGIN, 'POST'],
      // A method the route does not serve.
      ['/v1/auth/otps/verify', ORIGIN, 'DELETE'],
    ] as const) {
      const res = await request(a, 'OPTIONS', path, { headers: preflight(origin, method) });
      expect(res.status, `${path} ${origin}`).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), `${path} ${origin} ${method}`).toBeNull();
    }
  });

  it('lets a listed origin read answers to its own App public token only', async () => {
    const { a, b } = await setup();
    const body = { method_id: 'email_nope', otp: '123456' };
    const mine = await request(a, 'POST', '/v1/auth/otps/verify', {
      headers: { ...bearer(a.public_token), origin: ORIGIN },
      body,
    });
    expect(mine.status).toBe(404);
    expect(mine.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(mine.headers.get('access-control-expose-headers')).toContain('retry-after');
    expect(mine.headers.get('vary')).toContain('Origin');
    expect(mine.headers.get('access-control-allow-credentials')).toBeNull();

    const refused: Array<[string, string, Record<string, string>, unknown]> = [
      // Another App's origin with this App's token.
      ['POST', '/v1/auth/otps/verify', { ...bearer(a.public_token), origin: 'https://b.example.org' }, body],
      // An unlisted origin.
      ['POST', '/v1/auth/otps/verify', { ...bearer(b.public_token), origin: ORIGIN }, body],
      // The secret key has no place in a browser, even from a listed origin.
      ['POST', '/v1/auth/otps/verify', { ...bearer(a.secret_key), origin: ORIGIN }, body],
      // A secret-key route.
      ['POST', '/v1/auth/users', { ...bearer(a.secret_key), origin: ORIGIN }, { email: 'c@example.com' }],
    ];
    for (const [method, path, headers, b2] of refused) {
      const res = await request(a, method, path, { headers, body: b2 });
      expect(res.headers.get('access-control-allow-origin'), `${path} ${headers.origin}`).toBeNull();
    }
    // A call without an Origin (a server) is not a CORS call: no CORS headers at all.
    const server = await request(a, 'POST', '/v1/auth/otps/verify', {
      headers: bearer(a.public_token),
      body,
    });
    expect(server.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets a listed origin read a 401 (bad key) from a public-token route', async () => {
    const { a } = await setup();
    const res = await request(a, 'POST', '/v1/auth/otps/verify', {
      headers: { authorization: 'Bearer pk_wrong', origin: ORIGIN },
      body: { method_id: 'x', otp: '1' },
    });
    expect(res.status).toBe(401);
    expectErrorShape(res);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });

  it('takes origins exactly as browsers send them in the App settings', () => {
    for (const bad of [
      'https://app.example.com/',
      'https://app.example.com/path',
      '*',
      'app.example.com',
      'null',
    ])
      expect(() => appSettingsSchema.parse({ cors: { allowed_origins: [bad] } }), bad).toThrow();
    expect(
      appSettingsSchema.parse({ cors: { allowed_origins: [ORIGIN, 'http://localhost:3000'] } }).cors,
    ).toEqual({ allowed_origins: [ORIGIN, 'http://localhost:3000'] });
  });
});

/** Memory storage whose user reads take `ms`: a handler slower than the time limit. */
function slowUserReads(ms: number): Storage {
  const storage = memoryStorage();
  const users = storage.users;
  return {
    ...storage,
    transaction: storage.transaction,
    users: {
      ...users,
      get: async (appId, userId) => {
        await new Promise((r) => setTimeout(r, ms));
        return users.get(appId, userId);
      },
      getWithMethods: async (appId, userId) => {
        await new Promise((r) => setTimeout(r, ms));
        return users.getWithMethods(appId, userId);
      },
    },
  };
}

describe('request timeout', () => {
  it('answers 503 request_timeout when a handler takes longer than the limit', async () => {
    const reported: string[] = [];
    const { latchkey } = testLatchkey({
      storage: slowUserReads(300),
      http: { requestTimeoutMs: 50 },
      onInternalError: (_err, requestId) => reported.push(requestId),
    });
    const t = await testApp(latchkey);
    const started = Date.now();
    const res = await t.call('GET', '/v1/auth/users/user_slow');
    expect(Date.now() - started).toBeLessThan(250);
    expect(res.status).toBe(503);
    expect(expectErrorShape(res).error_type).toBe('request_timeout');
    // Operators hear of it, under the id the client saw.
    expect(reported).toEqual([res.body.request_id]);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    // Fast routes are unaffected.
    expect((await t.call('POST', '/v1/auth/users', { email: 'fast@example.com' })).status).toBe(200);
  });

  it('cuts off a client that never finishes its body', async () => {
    const { latchkey } = testLatchkey({ http: { requestTimeoutMs: 100 }, onInternalError: () => {} });
    const t = await testApp(latchkey);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"email": "slow'));
      },
    });
    const res = await latchkey.fetch(
      new Request('http://latchkey.test/v1/auth/users', {
        method: 'POST',
        headers: { ...bearer(t.secret_key), 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(503);
    expect((await res.json()).error_type).toBe('request_timeout');
  });

  it('is 30 s unless configured', async () => {
    const { latchkey } = testLatchkey({ storage: slowUserReads(100) });
    const t = await testApp(latchkey);
    expect((await t.call('GET', '/v1/auth/users/user_slow')).status).toBe(404);
  });
});

describe('per-route rate limits', () => {
  it('class the routes by what each declares, not by its path', () => {
    const doc = testLatchkey().latchkey.openapi() as unknown as {
      paths: Record<string, Record<string, { 'x-latchkey-policy'?: { rate?: RouteClass } }>>;
    };
    const routeClass = (key: string) => {
      const [method, path] = key.split(' ') as [string, string];
      return doc.paths[path]?.[method.toLowerCase()]?.['x-latchkey-policy']?.rate;
    };
    expect(routeClass('POST /v1/auth/otps/verify')).toBe('verify');
    expect(routeClass('POST /v1/auth/magic_links/authenticate')).toBe('verify');
    expect(routeClass('POST /v1/auth/webauthn/authentications/complete')).toBe('verify');
    expect(routeClass('POST /v1/auth/otps/email/login_or_create')).toBe('send');
    expect(routeClass('POST /v1/auth/otps/sms/send')).toBe('send');
    expect(routeClass('POST /v1/auth/wallets/challenge')).toBe('send');
    expect(routeClass('POST /v1/auth/passwords/strength_check')).toBe('compute');
    expect(routeClass('POST /v1/auth/sessions/authenticate')).toBe('other');
    // Secret-key routes take no public-token default.
    expect(routeClass('POST /v1/auth/totps/recover')).toBeUndefined();
    expect(routeClass('GET /v1/auth/users/{user_id}')).toBeUndefined();
  });

  it('limit public-token guesses per client IP by default, with 429 and Retry-After', async () => {
    const { latchkey, clock } = testLatchkey();
    const t = await testApp(latchkey);
    const verify = (ip: string, key = t.public_token) =>
      request(t, 'POST', '/v1/auth/otps/verify', {
        headers: bearer(key),
        body: { method_id: 'email_nope', otp: '000000' },
        ip,
      });
    for (let i = 0; i < 30; i++) expect((await verify('203.0.113.7')).status).toBe(404);
    const limited = await verify('203.0.113.7');
    expect(limited.status).toBe(429);
    expect(expectErrorShape(limited).error_type).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // Another client, and the App's own backend with the secret key, are not held back.
    expect((await verify('198.51.100.1')).status).toBe(404);
    expect((await verify('203.0.113.7', t.secret_key)).status).toBe(404);
    // The next window lets the client in again.
    clock.advance(60);
    expect((await verify('203.0.113.7')).status).toBe(404);
  });

  it('apply an App rule for a route to every key, counted per App, IP or body field', async () => {
    const { latchkey, clock } = testLatchkey();
    const t = await testApp(latchkey);
    await latchkey.apps.updateSettings(t.app_id, {
      rate_limits: {
        routes: {
          'GET /v1/auth/users/{user_id}': { limit: 3, window_seconds: 60, by: 'app' },
          'POST /v1/auth/otps/verify': { limit: 2, window_seconds: 300, by: 'body.method_id' },
        },
      },
    });
    const statuses: number[] = [];
    for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4'])
      statuses.push(
        (await request(t, 'GET', '/v1/auth/users/user_x', { headers: bearer(t.secret_key), ip })).status,
      );
    expect(statuses).toEqual([404, 404, 404, 429]);

    const verify = (method_id: string) =>
      request(t, 'POST', '/v1/auth/otps/verify', {
        headers: bearer(t.secret_key),
        body: { method_id, otp: '000000' },
        ip: `192.0.2.${Math.floor(Math.random() * 200)}`,
      });
    expect([(await verify('email_a')).status, (await verify('email_a')).status]).toEqual([404, 404]);
    expect((await verify('email_a')).status).toBe(429);
    expect((await verify('email_b')).status).toBe(404);
    clock.advance(300);
    expect((await verify('email_a')).status).toBe(404);
  });

  it('raise or lower a class default for the public token', async () => {
    const { latchkey } = testLatchkey();
    const t = await testApp(latchkey);
    await latchkey.apps.updateSettings(t.app_id, {
      rate_limits: { public_routes: { send: { limit: 1 } } },
    });
    const send = () =>
      request(t, 'POST', '/v1/auth/otps/email/login_or_create', {
        headers: bearer(t.public_token),
        body: { email: `x${Math.random()}@example.com` },
        ip: '192.0.2.9',
      });
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(429);
  });

  it('refuse malformed rules in the App settings', () => {
    const parse = (routes: unknown) => () => appSettingsSchema.parse({ rate_limits: { routes } });
    expect(parse({ 'POST /v1/auth/otps/verify': { limit: 5, window_seconds: 60 } })).not.toThrow();
    expect(parse({ '/v1/auth/otps/verify': { limit: 5, window_seconds: 60 } })).toThrow();
    expect(parse({ 'POST /v1/auth/otps/verify': { limit: 0, window_seconds: 60 } })).toThrow();
    expect(parse({ 'POST /v1/auth/otps/verify': { limit: 5, window_seconds: 60, by: 'cookie' } })).toThrow();
    expect(appSettingsSchema.parse({}).rate_limits.public_routes).toEqual({
      verify: { limit: 30, window_seconds: 60 },
      send: { limit: 30, window_seconds: 60 },
      compute: { limit: 60, window_seconds: 60 },
    });
  });
});
