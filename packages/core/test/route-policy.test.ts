import type { RoutePolicy } from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { expectErrorShape, testApp, testLatchkey } from './helpers.js';

/**
 * Route policy lives on the route (`policy()` beside each `createRoute`): the API-key check, the
 * public-token rate limits, CORS and the named-user rule read the declaration. A route added
 * without one, or a public-token route without a rate class, fails here.
 */
const CLASSES = ['verify', 'send', 'compute', 'other'];
type Declared = { key: string; policy: RoutePolicy | undefined };
const undeclared = (routes: Declared[]) => routes.filter((r) => r.policy === undefined).map((r) => r.key);
const unclassed = (routes: Declared[]) =>
  routes
    .filter(
      (r) => r.policy?.key === 'public' && !CLASSES.includes((r.policy as { rate?: string }).rate ?? ''),
    )
    .map((r) => r.key);

describe('route policy declarations', () => {
  const { latchkey } = testLatchkey();
  const doc = latchkey.openapi() as unknown as {
    paths: Record<string, Record<string, { security: unknown; 'x-latchkey-policy'?: RoutePolicy }>>;
  };
  const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      key: `${method.toUpperCase()} ${path}`,
      policy: op['x-latchkey-policy'],
    })),
  );

  it('covers every documented route', () => {
    expect(routes.length).toBeGreaterThan(40);
    expect(undeclared(routes), 'routes without policy({ … })').toEqual([]);
  });

  it('gives every public-token route a rate class', () => {
    const unclassed = routes
      .filter(
        (r) => r.policy?.key === 'public' && !CLASSES.includes((r.policy as { rate?: string }).rate ?? ''),
      )
      .map((r) => r.key);
    expect(unclassed, 'public-token routes without a rate class').toEqual([]);
  });

  it('documents the security each declaration enforces', () => {
    const expected = {
      open: [],
      secret: [{ secretKey: [] }],
      public: [{ secretKey: [] }, { publicToken: [] }],
    };
    for (const { key, policy } of routes) {
      const [method, path] = key.split(' ') as [string, string];
      const op = doc.paths[path]?.[method.toLowerCase()];
      expect(op?.security, key).toEqual(expected[policy!.key]);
      expect(op?.['x-latchkey-policy'], key).toEqual(policy);
    }
  });

  it('catches a route without a declaration and a public-token route without a class', () => {
    const bad: Declared[] = [
      { key: 'POST /v1/new/callback', policy: undefined },
      { key: 'POST /v1/new/verify', policy: { key: 'public' } as RoutePolicy },
      { key: 'POST /v1/new/ok', policy: { key: 'public', rate: 'verify' } },
    ];
    expect(undeclared(bad)).toEqual(['POST /v1/new/callback']);
    expect(unclassed(bad)).toEqual(['POST /v1/new/verify']);
  });
});

describe('what the declarations enforce', () => {
  it('serves open routes without a key, and asks one elsewhere', async () => {
    const t = await testApp();
    for (const path of ['/v1/health', '/v1/openapi.json', '/v1/auth/sessions/jwks/app_nope'])
      expect((await t.call('GET', path, undefined, '')).status, path).not.toBe(401);
    expect(expectErrorShape(await t.call('GET', '/v1/auth/sessions/jwks', undefined, '')).error_type).toBe(
      'unauthorized',
    );
  });

  it('refuses a public token on secret-key routes and for named-user fields', async () => {
    const t = await testApp();
    const cases: Array<[string, string, unknown]> = [
      ['GET', '/v1/auth/users/user_x', undefined],
      ['POST', '/v1/auth/otps/email/send', { email: 'a@example.com', user_id: 'user_x' }],
      ['POST', '/v1/auth/passwords/strength_check', { password: 'pw', user_id: 'user_x' }],
      ['POST', '/v1/auth/sessions/revoke', { session_id: 'session_x' }],
      [
        'POST',
        '/v1/auth/wallets/challenge',
        { wallet_type: 'ethereum', public_address: '0x0', user_id: 'u' },
      ],
      ['POST', '/v1/auth/webauthn/authentications/begin', { user_id: 'user_x' }],
    ];
    for (const [method, path, body] of cases) {
      const res = await t.call(method, path, body, t.public_token);
      expect(res.status, path).toBe(403);
      expect(expectErrorShape(res).error_type, path).toBe('secret_key_required');
    }
    // Without the named field, the public token passes the policy (and meets the route's own checks).
    const res = await t.call('POST', '/v1/auth/passwords/strength_check', { password: 'pw' }, t.public_token);
    expect(res.status).toBe(200);
  });
});
