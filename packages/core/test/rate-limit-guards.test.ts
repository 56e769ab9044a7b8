import { appSettingsSchema, type RateLimiter, storageRateLimiter } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { describe, expect, it } from 'vitest';
import { manualClock, type TestApp, testApp, testLatchkey } from './helpers.js';

/** The limits' edges each guard holds: windows, keys, subjects and the settings' bounds. */

const DAY = 86_400;

function limiterAt(start: number) {
  const clock = manualClock(start * 1000);
  const storage = memoryStorage();
  return { clock, limiter: storageRateLimiter(storage.rateLimits, clock) };
}

describe('storageRateLimiter', () => {
  it('counts in fixed windows aligned to the epoch: Retry-After is what is left of the window', async () => {
    // 50 s into a minute window.
    const { clock, limiter } = limiterAt(DAY * 20_000 + 50);
    expect(await limiter.hit('k', 2, 60)).toEqual({ allowed: true, remaining: 1, retryAfter: 0 });
    expect(await limiter.hit('k', 2, 60)).toEqual({ allowed: true, remaining: 0, retryAfter: 0 });
    expect(await limiter.hit('k', 2, 60)).toEqual({ allowed: false, remaining: 0, retryAfter: 10 });
    clock.advance(9);
    expect((await limiter.hit('k', 2, 60)).allowed).toBe(false);
    clock.advance(1);
    expect(await limiter.hit('k', 2, 60)).toEqual({ allowed: true, remaining: 1, retryAfter: 0 });
  });

  it('keeps a key counted under two windows apart, even where the windows start together', async () => {
    const { limiter } = limiterAt(DAY * 20_000); // a minute, an hour and a day all start here
    expect((await limiter.hit('k', 1, 60)).allowed).toBe(true);
    expect((await limiter.hit('k', 1, 3600)).allowed).toBe(true);
    expect((await limiter.hit('k', 1, 60)).allowed).toBe(false);
    expect((await limiter.hit('k', 1, 3600)).allowed).toBe(false);
  });

  it('prunes only ended windows: a day-long window still holds after a prune', async () => {
    const { clock, limiter } = limiterAt(DAY * 20_000 + 10);
    expect((await limiter.hit('daily', 1, DAY)).allowed).toBe(true);
    clock.advance(6 * 3600);
    // The thousandth hit prunes (not awaited): let it run, then the day's count must be there.
    for (let i = 0; i < 1000; i++) await limiter.hit(`other${i}`, 5, 60);
    await new Promise((r) => setTimeout(r, 0));
    expect((await limiter.hit('daily', 1, DAY)).allowed).toBe(false);
  });
});

async function request(t: TestApp, path: string, key: string, body: unknown, ip: string) {
  const res = await t.latchkey.fetch(
    new Request(`http://latchkey.test${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    { clientIp: ip },
  );
  return res.status;
}

describe('route limits: whose calls count together', () => {
  const verify = (t: TestApp, ip: string) =>
    request(t, '/v1/auth/otps/verify', t.public_token, { method_id: 'email_nope', otp: '000000' }, ip);

  it('a class default counts per App and per route, not across them', async () => {
    const { latchkey } = testLatchkey();
    const a = await testApp(latchkey);
    const b = await testApp(latchkey);
    await latchkey.apps.updateSettings(a.app_id, {
      rate_limits: { public_routes: { verify: { limit: 2 } } },
    });
    await latchkey.apps.updateSettings(b.app_id, {
      rate_limits: { public_routes: { verify: { limit: 2 } } },
    });
    const ip = '203.0.113.20';
    expect([await verify(a, ip), await verify(a, ip), await verify(a, ip)]).toEqual([404, 404, 429]);
    // Another App, same client: its own count.
    expect(await verify(b, ip)).toBe(404);
    // Another route of the same class, same App and client: its own count.
    const link = await request(a, '/v1/auth/magic_links/authenticate', a.public_token, { token: 'nope' }, ip);
    expect(link).not.toBe(429);
  });

  it("routes of the 'other' class take no public-token default", async () => {
    const t = await testApp(testLatchkey().latchkey);
    const statuses = new Set<number>();
    for (let i = 0; i < 35; i++)
      statuses.add(
        await request(
          t,
          '/v1/auth/sessions/authenticate',
          t.public_token,
          { session_token: 'x' },
          '203.0.113.21',
        ),
      );
    expect(statuses.has(429)).toBe(false);
    expect(statuses.has(500)).toBe(false);
  });

  it('by a body field: counts by its value (strings and numbers), hashed; without it, per client IP', async () => {
    const keys: string[] = [];
    const clock = manualClock();
    const storage = memoryStorage();
    const inner = storageRateLimiter(storage.rateLimits, clock);
    const spy: RateLimiter = {
      hit: (key, limit, window) => {
        keys.push(key);
        return inner.hit(key, limit, window);
      },
    };
    const { latchkey } = testLatchkey({ storage, clock, rateLimiter: spy });
    const t = await testApp(latchkey);
    await latchkey.apps.updateSettings(t.app_id, {
      rate_limits: {
        routes: { 'POST /v1/auth/otps/verify': { limit: 1, window_seconds: 60, by: 'body.otp' } },
      },
    });
    const send = (body: unknown, ip: string) => request(t, '/v1/auth/otps/verify', t.secret_key, body, ip);
    // The same number from two clients is one subject.
    expect(await send({ method_id: 'email_nope', otp: 123456 }, '192.0.2.1')).not.toBe(429);
    expect(await send({ method_id: 'email_nope', otp: 123456 }, '192.0.2.2')).toBe(429);
    expect(await send({ method_id: 'email_nope', otp: '654321' }, '192.0.2.3')).not.toBe(429);
    expect(await send({ method_id: 'email_nope', otp: '654321' }, '192.0.2.4')).toBe(429);
    // Without the field, each client is its own subject.
    expect(await send({ method_id: 'email_nope' }, '192.0.2.5')).not.toBe(429);
    expect(await send({ method_id: 'email_nope' }, '192.0.2.6')).not.toBe(429);
    expect(await send({ method_id: 'email_nope' }, '192.0.2.6')).toBe(429);
    // What the limiter is given holds no value as typed.
    const routeKeys = keys.filter((k) => k.startsWith('route:'));
    expect(routeKeys.length).toBeGreaterThan(0);
    for (const k of routeKeys) expect(k).not.toMatch(/123456|654321/);
  });
});

describe('route limits: HEAD', () => {
  it("counts a HEAD request (served by the GET route) under the GET route's rule", async () => {
    const { latchkey } = testLatchkey();
    const t = await testApp(latchkey);
    await latchkey.apps.updateSettings(t.app_id, {
      rate_limits: {
        routes: { 'GET /v1/auth/users/{user_id}': { limit: 2, window_seconds: 60, by: 'app' } },
      },
    });
    const call = async (method: string) =>
      (
        await latchkey.fetch(
          new Request('http://latchkey.test/v1/auth/users/user_x', {
            method,
            headers: { authorization: `Bearer ${t.secret_key}` },
          }),
        )
      ).status;
    expect([await call('HEAD'), await call('GET'), await call('HEAD'), await call('GET')]).toEqual([
      404, 404, 429, 429,
    ]);
  });
});

/**
 * The send routes count their route window in the same step as the send's windows (one
 * statement on Postgres); any call that does not get that far has it counted after the route.
 * Either way each request is counted once, and a request over the limit is answered 429 before
 * anything else about it.
 */
describe('route window counted with the send', () => {
  const routes = [
    { path: '/v1/auth/otps/email/login_or_create', good: () => ({ email: `u${Math.random()}@example.com` }) },
    {
      path: '/v1/auth/otps/sms/login_or_create',
      good: () => ({ phone_number: `+1415555${1000 + Math.floor(Math.random() * 8999)}` }),
    },
    {
      path: '/v1/auth/magic_links/email/login_or_create',
      good: () => ({ email: `u${Math.random()}@example.com` }),
    },
  ];
  const limited = async () => {
    const { latchkey } = testLatchkey();
    const t = await testApp(latchkey);
    await latchkey.apps.updateSettings(t.app_id, {
      rate_limits: { public_routes: { send: { limit: 3 } } },
      redirect_urls: {
        login: ['https://x.test/l'],
        signup: ['https://x.test/s'],
        default_login: 'https://x.test/l',
        default_signup: 'https://x.test/s',
      },
    });
    return t;
  };

  it.each(routes)('$path: a request that sends is counted once', async ({ path, good }) => {
    const t = await limited();
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await request(t, path, t.public_token, good(), '192.0.2.1'));
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Another caller is counted apart.
    expect(await request(t, path, t.public_token, good(), '192.0.2.2')).toBe(200);
  });

  it.each(routes)(
    '$path: a bad body is counted once too, and over the limit it gets 429',
    async ({ path, good }) => {
      const t = await limited();
      const bad = { email: 'not an address', phone_number: 'nope' };
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push(await request(t, path, t.public_token, bad, '192.0.2.1'));
      expect(statuses).toEqual([400, 400, 400]);
      expect(await request(t, path, t.public_token, bad, '192.0.2.1')).toBe(429);
      expect(await request(t, path, t.public_token, good(), '192.0.2.1')).toBe(429);
    },
  );

  it('counts a call refused after its body was read (a redirect off the list), once', async () => {
    const t = await limited();
    const path = '/v1/auth/magic_links/email/login_or_create';
    const refused = () => ({
      email: `u${Math.random()}@example.com`,
      signup_redirect_url: 'https://evil.test/',
    });
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push(await request(t, path, t.public_token, refused(), '192.0.2.1'));
    expect(statuses[0]).toBeGreaterThanOrEqual(400);
    expect(statuses[0]).toBeLessThan(429);
    expect(
      await request(t, path, t.public_token, { email: `u${Math.random()}@example.com` }, '192.0.2.1'),
    ).toBe(200);
    expect(await request(t, path, t.public_token, refused(), '192.0.2.1')).toBe(429);
  });

  it('answers the route window refusal, not the send windows, when both refuse', async () => {
    const t = await limited();
    await t.latchkey.apps.updateSettings(t.app_id, {
      rate_limits: { public_routes: { send: { limit: 3 } }, per_destination: { limit: 1 } },
    });
    const path = '/v1/auth/otps/email/login_or_create';
    const body = { email: 'same@example.com' };
    expect(await request(t, path, t.public_token, body, '192.0.2.1')).toBe(200);
    expect(await request(t, path, t.public_token, body, '192.0.2.1')).toBe(429); // per destination
    expect(await request(t, path, t.public_token, { email: 'other@example.com' }, '192.0.2.1')).toBe(200);
    expect(await request(t, path, t.public_token, { email: 'third@example.com' }, '192.0.2.1')).toBe(429); // route
  });
});

describe('send limits', () => {
  it('count a destination per App: one App spending its limit leaves another alone', async () => {
    const { latchkey } = testLatchkey();
    const a = await testApp(latchkey);
    const b = await testApp(latchkey);
    for (const t of [a, b])
      await latchkey.apps.updateSettings(t.app_id, { rate_limits: { per_destination: { limit: 1 } } });
    const send = (t: TestApp) =>
      t
        .call('POST', '/v1/auth/otps/email/login_or_create', { email: 'same@example.com' })
        .then((r) => r.status);
    expect([await send(a), await send(a)]).toEqual([200, 429]);
    expect(await send(b)).toBe(200);
  });
});

describe('rate limit settings: the bounds', () => {
  const rule = (r: Record<string, unknown>, route = 'POST /v1/auth/otps/verify') =>
    appSettingsSchema.safeParse({
      rate_limits: { routes: { [route]: { limit: 5, window_seconds: 60, ...r } } },
    }).success;

  it('limit 1 to 1,000,000; window 1 s to a day (the prune keeps a day)', () => {
    expect([rule({ limit: 1 }), rule({ limit: 1_000_000 })]).toEqual([true, true]);
    expect([rule({ limit: 0 }), rule({ limit: 1_000_001 }), rule({ limit: 1.5 })]).toEqual([
      false,
      false,
      false,
    ]);
    expect([rule({ window_seconds: 1 }), rule({ window_seconds: DAY })]).toEqual([true, true]);
    expect([rule({ window_seconds: 0 }), rule({ window_seconds: DAY + 1 })]).toEqual([false, false]);
    const cls = (c: Record<string, unknown>) =>
      appSettingsSchema.safeParse({ rate_limits: { public_routes: { verify: c } } }).success;
    expect([cls({ limit: 0 }), cls({ window_seconds: DAY + 1 }), cls({ limit: 1_000_000 })]).toEqual([
      false,
      false,
      true,
    ]);
  });

  it('by: ip, app or body.<field> (a name of 1 to 64 characters), nothing around them', () => {
    for (const by of ['ip', 'app', 'body.method_id', 'body._', `body.${'a'.repeat(64)}`])
      expect(rule({ by }), by).toBe(true);
    for (const by of [
      '',
      'ipx',
      'xip',
      ' app',
      'apps',
      'body.',
      'body.1a',
      'body.a-b',
      'body.a.b',
      `body.${'a'.repeat(65)}`,
      'cookie',
    ])
      expect(rule({ by }), by).toBe(false);
  });

  it('a route key is METHOD /v1/path, nothing around it', () => {
    for (const route of ['GET /v1/app', 'DELETE /v1/wallets/policies/{policy_id}', 'PATCH /v1/app/settings'])
      expect(rule({}, route), route).toBe(true);
    for (const route of [
      'HEAD /v1/app',
      'POST /v2/app',
      'xPOST /v1/app',
      'POST /v1/app ',
      'POST  /v1/app',
      'post /v1/app',
      'POST /v1/a b',
    ])
      expect(rule({}, route), route).toBe(false);
  });
});
