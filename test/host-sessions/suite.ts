/**
 * The host-session behaviour every framework adapter must show (Express, Hono, Fastify): one
 * suite, run by each package's test against a host app built with that framework's helpers.
 * A `Mount` builds the app from a framework-neutral description: Latchkey's routes at `/auth`,
 * and host routes behind `requireSession` / `optionalSession` / `revokeSession`, each answering
 * `{ app_id, user_id, session_id }` from the request's session (nulls without one).
 */
import {
  createLatchkey,
  type HostSessionOptions,
  type Latchkey,
  type OutboundMessage,
  type SessionCookieOptions,
} from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

export type SessionOptions = HostSessionOptions;

export interface HostRoute {
  method: 'GET' | 'POST' | 'ALL';
  path: string;
  guard: 'require' | 'optional' | 'revoke';
  options: SessionOptions;
}

export interface HostSpec {
  /** The cookies option of Latchkey's routes at `/auth` (default: true). */
  routerCookies?: boolean | SessionCookieOptions;
  routes: HostRoute[];
  /** Believe the loopback proxy's X-Forwarded-Proto (Express's `trust proxy`, …). */
  trustProxy?: boolean;
}

/** What supertest can send requests to: a Node request listener or an http.Server. */
export type Target = Parameters<typeof request>[0];

export type Mount = (latchkey: Latchkey, spec: HostSpec) => Target | Promise<Target>;

/** The body every host route answers with. */
export const whoBody = (
  auth:
    | {
        app_id: string;
        user_id: string;
        session_id: string;
        auth_time: number;
        factors: Array<{ type: string }>;
      }
    | null
    | undefined,
) => ({
  app_id: auth?.app_id ?? null,
  user_id: auth?.user_id ?? null,
  session_id: auth?.session_id ?? null,
  auth_time: auth?.auth_time ?? null,
  factors: auth?.factors.map((f) => f.type) ?? null,
});

export function hostSessionSuite(name: string, mount: Mount): void {
  const sent: OutboundMessage[] = [];
  const latchkey = createLatchkey({
    storage: memoryStorage(),
    secret: 'x'.repeat(40),
    sender: { send: async (m) => void sent.push(m) },
  });
  let app: { app_id: string; public_token: string; secret_key: string };
  let otherApp: { app_id: string; public_token: string };
  /** An organization a route names (`organization: orgId`); made with the App. */
  let namedOrg = '';

  /** A real host app: Latchkey's routes with cookies, and the host's own routes behind the helpers. */
  const host = (appId: string, trustProxy = false) =>
    mount(latchkey, {
      trustProxy,
      routes: [
        { method: 'GET', path: '/jwt/me', guard: 'require', options: { app_id: appId } },
        { method: 'GET', path: '/token/me', guard: 'require', options: { app_id: appId, mode: 'token' } },
        { method: 'GET', path: '/maybe/me', guard: 'optional', options: { app_id: appId } },
        { method: 'GET', path: '/cookie/me', guard: 'require', options: { app_id: appId, cookies: true } },
        {
          method: 'GET',
          path: '/cookie-token/me',
          guard: 'require',
          options: { app_id: appId, mode: 'token', cookies: true },
        },
        {
          method: 'POST',
          path: '/cookie/transfer',
          guard: 'require',
          options: { app_id: appId, cookies: true },
        },
        { method: 'ALL', path: '/cookie/any', guard: 'require', options: { app_id: appId, cookies: true } },
        { method: 'POST', path: '/logout', guard: 'revoke', options: { app_id: appId, cookies: true } },
        // Step-up: a sensitive page that wants a proof of the last 2 minutes, or a passkey.
        {
          method: 'GET',
          path: '/fresh/me',
          guard: 'require',
          options: { app_id: appId, cookies: true, freshWithin: '2m' },
        },
        {
          method: 'GET',
          path: '/passkey/me',
          guard: 'require',
          options: { app_id: appId, mode: 'token', factors: ['webauthn'] },
        },
        // Organizations: any organization session, a named one, a permission (jwt and token mode).
        { method: 'GET', path: '/org/me', guard: 'require', options: { app_id: appId, organization: true } },
        {
          method: 'GET',
          path: '/org/named',
          guard: 'require',
          options: { app_id: appId, organization: namedOrg },
        },
        {
          method: 'GET',
          path: '/org/invoices',
          guard: 'require',
          options: { app_id: appId, permission: 'invoices:read', cookies: true },
        },
        {
          method: 'GET',
          path: '/org-token/invoices',
          guard: 'require',
          options: { app_id: appId, mode: 'token', permission: 'invoices:read' },
        },
      ],
    });

  /** Signs in through the routes; `host` decides the cookies' names (a local host's carry no prefix). */
  async function signIn(h: Target, publicToken: string, email: string, host = 'localhost') {
    const send = await request(h)
      .post('/auth/v1/auth/otps/email/login_or_create')
      .set('authorization', `Bearer ${publicToken}`)
      .send({ email });
    const code = sent.filter((m) => m.to === email).at(-1)!.code!;
    const verify = await request(h)
      .post('/auth/v1/auth/otps/verify')
      .set('host', host)
      .set('authorization', `Bearer ${publicToken}`)
      .send({ method_id: send.body.method_id, otp: code, session_expires_in: 60 });
    expect(verify.status).toBe(200);
    return verify;
  }

  const expectErrorShape = (res: request.Response, status: number, errorType: string) => {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({
      status_code: status,
      request_id: res.headers['x-request-id'],
      error_type: errorType,
      error_message: expect.any(String),
    });
  };

  const cookiesOf = (res: request.Response): string[] => {
    const raw = res.headers['set-cookie'] as unknown as string[] | undefined;
    return raw ?? [];
  };
  const cookieHeader = (setCookies: string[]) => setCookies.map((c) => c.split(';')[0]).join('; ');

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2027, 0, 1));
    app = await latchkey.apps.create({
      name: 'Host',
      settings: {
        cors: { allowed_origins: ['https://app.example.com'] },
        organizations: { roles: { billing: ['invoices:read'] } },
      },
    });
    otherApp = await latchkey.apps.create({ name: 'Other host' });
    namedOrg = (await admin('POST', '/v1/organizations', { name: 'Named', slug: 'named' })).body
      .organization_id;
  });

  /** Calls Latchkey's API with the App's secret key, as the host's back office would. */
  async function admin(method: string, path: string, body?: unknown) {
    const res = await latchkey.fetch(
      new Request(`http://latchkey.test${path}`, {
        method,
        headers: { authorization: `Bearer ${app.secret_key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }
  afterAll(() => {
    vi.useRealTimers();
  });

  const advance = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);

  describe(`requireSession and optionalSession on a host ${name} app`, () => {
    it('no credential: 401 in the documented shape; optionalSession carries on without req.auth', async () => {
      const h = await host(app.app_id);
      expectErrorShape(await request(h).get('/jwt/me'), 401, 'session_required');
      expectErrorShape(
        await request(h).get('/jwt/me').set('authorization', 'Basic abc'),
        401,
        'session_required',
      );
      const maybe = await request(h).get('/maybe/me');
      expect(maybe.status).toBe(200);
      expect(maybe.body.user_id).toBeNull();
    });

    it('a JWT or a token in Authorization: 200 with req.auth.user_id', async () => {
      const h = await host(app.app_id);
      const s = await signIn(h, app.public_token, 'bearer@example.com');
      for (const [path, credential] of [
        ['/jwt/me', s.body.session_jwt],
        ['/token/me', s.body.session_jwt],
        ['/token/me', s.body.session_token],
        ['/jwt/me', s.body.session_token],
        ['/maybe/me', s.body.session_jwt],
      ]) {
        const res = await request(h).get(path!).set('authorization', `Bearer ${credential}`);
        expect(res.status, `${path} ${credential?.slice(0, 8)}`).toBe(200);
        // What the host sees of the session: who, which session, when they last proved it, and how.
        expect(res.body).toEqual({
          app_id: app.app_id,
          user_id: s.body.user_id,
          session_id: s.body.session.id,
          auth_time: s.body.session.factors[0].method.last_verified_at,
          factors: ['otp'],
        });
      }
    });

    it('step-up: 401 step_up_required once the proof is older than freshWithin or lacks the factor; cookies kept', async () => {
      const h = await host(app.app_id);
      const s = await signIn(h, app.public_token, 'step-up@example.com', '127.0.0.1');
      const cookie = cookieHeader(cookiesOf(s));
      const fresh = () => request(h).get('/fresh/me').set('host', '127.0.0.1').set('cookie', cookie);
      expect((await fresh()).status).toBe(200);
      // Twice: the second answer comes from the JWT this process verified before (same tick).
      expect((await fresh()).status).toBe(200);
      advance(121);
      for (const res of [await fresh(), await fresh()]) {
        expectErrorShape(res, 401, 'step_up_required');
        expect(res.body.error_message).toContain('120 seconds');
        expect(cookiesOf(res)).toEqual([]);
      }
      expect((await request(h).get('/cookie/me').set('host', '127.0.0.1').set('cookie', cookie)).status).toBe(
        200,
      );
      const passkey = await request(h)
        .get('/passkey/me')
        .set('authorization', `Bearer ${s.body.session_token}`);
      expectErrorShape(passkey, 401, 'step_up_required');
      expect(passkey.body.error_message).toContain('webauthn');
    });

    it('organization and permission: 403 permission_denied without an organization session or the permission, on the fast path too', async () => {
      const h = await host(app.app_id);
      const owner = await signIn(h, app.public_token, 'org-owner@example.com');
      const member = await signIn(h, app.public_token, 'org-member@example.com');
      const orgId = (
        await admin('POST', '/v1/organizations', {
          name: 'Acme',
          slug: 'acme-host',
          owner_user_id: owner.body.user_id,
        })
      ).body.organization_id as string;
      const added = await admin('POST', `/v1/organizations/${orgId}/members`, {
        user_id: member.body.user_id,
        roles: ['member'],
      });
      expect(added.status).toBe(200);
      const exchange = async (s: request.Response, organizationId = orgId) => {
        const res = await request(h)
          .post(`/auth/v1/organizations/${organizationId}/sessions/exchange`)
          .set('authorization', `Bearer ${app.public_token}`)
          .send({ session_token: s.body.session_token });
        expect(res.status).toBe(200);
        return res.body as { session_jwt: string; session_token: string };
      };
      const get = (path: string, credential: string) =>
        request(h).get(path).set('authorization', `Bearer ${credential}`);

      // A session in no organization: refused, twice (the second from the JWT verified before).
      for (let i = 0; i < 2; i++) {
        expectErrorShape(await get('/org/me', member.body.session_jwt), 403, 'permission_denied');
        expectErrorShape(await get('/org/invoices', member.body.session_jwt), 403, 'permission_denied');
      }
      const asMember = await exchange(member);
      for (let i = 0; i < 2; i++) {
        expect((await get('/org/me', asMember.session_jwt)).status).toBe(200);
        expectErrorShape(await get('/org/invoices', asMember.session_jwt), 403, 'permission_denied');
        expectErrorShape(await get('/org-token/invoices', asMember.session_token), 403, 'permission_denied');
        expectErrorShape(await get('/org/named', asMember.session_jwt), 403, 'permission_denied');
      }

      // Given the role: the old organization session ends (its JWT states the old roles).
      const patched = await admin('PATCH', `/v1/organizations/${orgId}/members/${added.body.member_id}`, {
        roles: ['billing'],
      });
      expect(patched.status).toBe(200);
      expectErrorShape(await get('/org/me', asMember.session_jwt), 401, 'session_not_found');
      const billing = await exchange(await signIn(h, app.public_token, 'org-member@example.com'));
      for (let i = 0; i < 2; i++) {
        const res = await get('/org/invoices', billing.session_jwt);
        expect(res.status).toBe(200);
        expect(res.body.user_id).toBe(member.body.user_id);
        expect((await get('/org-token/invoices', billing.session_token)).status).toBe(200);
      }
      // The owner's `*` grants every permission; a named organization takes only its own.
      const asOwner = await exchange(owner);
      expect((await get('/org/invoices', asOwner.session_jwt)).status).toBe(200);
      expectErrorShape(await get('/org/named', asOwner.session_jwt), 403, 'permission_denied');
      await admin('POST', `/v1/organizations/${namedOrg}/members`, {
        user_id: owner.body.user_id,
        roles: ['member'],
      });
      const inNamed = await exchange(await signIn(h, app.public_token, 'org-owner@example.com'), namedOrg);
      expect((await get('/org/named', inNamed.session_jwt)).status).toBe(200);
      expectErrorShape(await get('/org/invoices', inNamed.session_jwt), 403, 'permission_denied');

      // Removed from the organization: its session is over, in jwt mode at once.
      expect(
        (await admin('DELETE', `/v1/organizations/${orgId}/members/${added.body.member_id}`)).status,
      ).toBe(200);
      expectErrorShape(await get('/org/invoices', billing.session_jwt), 401, 'session_not_found');
    });

    it('a revoked session: 401 at once, in token mode and in jwt mode', async () => {
      const h = await host(app.app_id);
      const s = await signIn(h, app.public_token, 'revoked@example.com');
      const jwt = s.body.session_jwt;
      expect((await request(h).get('/jwt/me').set('authorization', `Bearer ${jwt}`)).status).toBe(200);
      await latchkey.sessions.revoke(app.app_id, { session_id: s.body.session.id });
      expectErrorShape(
        await request(h).get('/token/me').set('authorization', `Bearer ${jwt}`),
        401,
        'session_not_found',
      );
      expectErrorShape(
        await request(h).get('/token/me').set('authorization', `Bearer ${s.body.session_token}`),
        401,
        'session_not_found',
      );
      // jwt mode too: the process's set of revoked sessions (the two-process case: storage tests).
      expectErrorShape(
        await request(h).get('/jwt/me').set('authorization', `Bearer ${jwt}`),
        401,
        'session_not_found',
      );
    });

    it('an expired JWT and another App’s JWT: 401', async () => {
      const h = await host(app.app_id);
      const mine = await signIn(h, app.public_token, 'expired@example.com');
      const theirs = await signIn(await host(otherApp.app_id), otherApp.public_token, 'other@example.com');
      expectErrorShape(
        await request(h).get('/jwt/me').set('authorization', `Bearer ${theirs.body.session_jwt}`),
        401,
        'invalid_session_jwt',
      );
      expectErrorShape(
        await request(h).get('/token/me').set('authorization', `Bearer ${theirs.body.session_token}`),
        401,
        'session_not_found',
      );
      advance(301);
      for (const path of ['/jwt/me', '/token/me']) {
        expectErrorShape(
          await request(h).get(path).set('authorization', `Bearer ${mine.body.session_jwt}`),
          401,
          'invalid_session_jwt',
        );
      }
    });
  });

  describe('session cookies', () => {
    it('set by the router at sign-in, used, refreshed near expiry, cleared at logout', async () => {
      const h = await host(app.app_id);
      const s = await signIn(h, app.public_token, 'cookies@example.com');
      const set = cookiesOf(s);
      expect(set).toHaveLength(2);
      for (const c of set) {
        expect(c).toMatch(/HttpOnly/);
        expect(c).toMatch(/SameSite=Lax/);
        expect(c).toMatch(/Path=\//);
        expect(c).toMatch(/Max-Age=3600/);
      }
      expect(set.find((c) => c.startsWith('latchkey_session='))).toContain(s.body.session_token);
      expect(set.find((c) => c.startsWith('latchkey_session_jwt='))).toContain(s.body.session_jwt);
      const jar = cookieHeader(set);

      const used = await request(h).get('/cookie/me').set('cookie', jar);
      expect(used.status).toBe(200);
      expect(used.body.user_id).toBe(s.body.user_id);
      expect(cookiesOf(used)).toEqual([]);

      // Token mode, JWT past half its life: a fresh JWT cookie; jwt mode past exp: the same.
      advance(200);
      const refreshed = await request(h).get('/cookie-token/me').set('cookie', jar);
      expect(refreshed.status).toBe(200);
      const newJwt = cookiesOf(refreshed).find((c) => c.startsWith('latchkey_session_jwt='));
      expect(newJwt).toBeDefined();
      expect(newJwt).not.toContain(s.body.session_jwt);
      advance(200);
      const swapped = await request(h).get('/cookie/me').set('cookie', jar);
      expect(swapped.status).toBe(200);
      expect(cookiesOf(swapped).some((c) => c.startsWith('latchkey_session_jwt='))).toBe(true);

      const logout = await request(h).post('/logout').set('cookie', jar).set('sec-fetch-site', 'same-origin');
      expect(logout.status).toBe(200);
      expect(logout.body.session_id).toBe(s.body.session.id);
      const cleared = cookiesOf(logout);
      expect(cleared).toHaveLength(2);
      for (const c of cleared) expect(c).toMatch(/=; .*Max-Age=0/);
      const after = await request(h).get('/cookie-token/me').set('cookie', jar);
      expectErrorShape(after, 401, 'session_not_found');
      expect(cookiesOf(after)).toHaveLength(2); // dead cookies are cleared
    });

    it('a bad bearer beside good cookies: 401 for the bearer, and the cookies are left alone', async () => {
      const h = await host(app.app_id);
      const s = await signIn(h, app.public_token, 'bearer-beside-cookies@example.com');
      const res = await request(h)
        .get('/cookie-token/me')
        .set('authorization', 'Bearer lks_not_a_session')
        .set('cookie', cookieHeader(cookiesOf(s)));
      expectErrorShape(res, 401, 'session_not_found');
      expect(cookiesOf(res)).toEqual([]);
    });

    it('revokeSession ends a session whose JWT has expired (its only credential), by bearer or cookie', async () => {
      const h = await host(app.app_id);
      expectErrorShape(await request(h).post('/logout'), 401, 'session_required');
      for (const by of ['bearer', 'cookie'] as const) {
        const s = await signIn(h, app.public_token, `logout-expired-${by}@example.com`);
        advance(301);
        const jwt = s.body.session_jwt as string;
        const logout = request(h).post('/logout').set('sec-fetch-site', 'same-origin');
        const res = await (by === 'bearer'
          ? logout.set('authorization', `Bearer ${jwt}`)
          : logout.set('cookie', `latchkey_session_jwt=${jwt}`));
        expect(res.status, by).toBe(200);
        expect(res.body.session_id).toBe(s.body.session.id);
      }
    });

    it('Secure except on localhost', async () => {
      const h = await host(app.app_id);
      const s = await signIn(h, app.public_token, 'secure@example.com');
      const onLocalhost = await request(h)
        .post('/auth/v1/auth/sessions/authenticate')
        .set('host', 'localhost:3000')
        .set('authorization', `Bearer ${app.public_token}`)
        .send({ session_token: s.body.session_token });
      for (const c of cookiesOf(onLocalhost)) expect(c).not.toMatch(/Secure/);
      const elsewhere = await request(h)
        .post('/auth/v1/auth/sessions/authenticate')
        .set('host', 'shop.example.com')
        .set('authorization', `Bearer ${app.public_token}`)
        .send({ session_token: s.body.session_token });
      expect(cookiesOf(elsewhere)).toHaveLength(2);
      for (const c of cookiesOf(elsewhere)) expect(c).toMatch(/Secure/);
    });

    it('the router clears the cookies after sessions/revoke', async () => {
      const h = await host(app.app_id);
      const s = await signIn(h, app.public_token, 'router-revoke@example.com');
      const res = await request(h)
        .post('/auth/v1/auth/sessions/revoke')
        .set('authorization', `Bearer ${app.public_token}`)
        .send({ session_jwt: s.body.session_jwt });
      expect(res.status).toBe(200);
      expect(cookiesOf(res).every((c) => /Max-Age=0/.test(c))).toBe(true);
      expect(cookiesOf(res)).toHaveLength(2);
    });
  });

  describe('cookie names against cookie tossing', () => {
    const authenticate = (h: Target, token: string, hostHeader: string) =>
      request(h)
        .post('/auth/v1/auth/sessions/authenticate')
        .set('host', hostHeader)
        .set('authorization', `Bearer ${app.public_token}`)
        .send({ session_token: token });

    it('__Host- on a production host (Secure, Path=/, no Domain); __Secure- with a Domain or Path; bare on localhost', async () => {
      const s = await signIn(await host(app.app_id), app.public_token, 'names@example.com');
      const token = s.body.session_token as string;
      const names = (set: string[]) => set.map((c) => c.split('=')[0]);

      const prod = cookiesOf(await authenticate(await host(app.app_id), token, 'shop.example.com'));
      expect(names(prod)).toEqual(['__Host-latchkey_session', '__Host-latchkey_session_jwt']);
      for (const c of prod) {
        expect(c).toMatch(/; Secure/);
        expect(c).toMatch(/; Path=\/;/);
        expect(c).not.toMatch(/Domain=/);
      }
      const withOptions = (cookies: Record<string, unknown>) =>
        mount(latchkey, { routerCookies: cookies, routes: [] });
      const domain = cookiesOf(
        await authenticate(await withOptions({ domain: 'example.com' }), token, 'shop.example.com'),
      );
      expect(names(domain)).toEqual(['__Secure-latchkey_session', '__Secure-latchkey_session_jwt']);
      for (const c of domain) expect(c).toMatch(/Domain=example\.com.*; Secure/);
      const path = cookiesOf(
        await authenticate(await withOptions({ path: '/app' }), token, 'shop.example.com'),
      );
      expect(names(path)).toEqual(['__Secure-latchkey_session', '__Secure-latchkey_session_jwt']);

      for (const local of ['localhost:3000', '127.0.0.1', 'dev.localhost', '[::1]:3000']) {
        const set = cookiesOf(await authenticate(await host(app.app_id), token, local));
        expect(names(set), local).toEqual(['latchkey_session', 'latchkey_session_jwt']);
        for (const c of set) expect(c).not.toMatch(/Secure/);
      }
      // Only what ends in ".localhost" is local: a look-alike domain is a production host.
      for (const lookalike of ['evillocalhost.com', 'localhost.evil.com', 'notlocalhost']) {
        const set = cookiesOf(await authenticate(await host(app.app_id), token, lookalike));
        expect(names(set), lookalike).toEqual(['__Host-latchkey_session', '__Host-latchkey_session_jwt']);
        for (const c of set) expect(c, lookalike).toMatch(/; Secure/);
      }
      // The names used before the prefixes, kept by passing them; secure: false drops the prefix.
      const old = cookiesOf(
        await authenticate(
          await withOptions({ tokenName: 'latchkey_session', jwtName: 'latchkey_session_jwt' }),
          token,
          'shop.example.com',
        ),
      );
      expect(names(old)).toEqual(['latchkey_session', 'latchkey_session_jwt']);
      for (const c of old) expect(c).toMatch(/; Secure/);
      const insecure = cookiesOf(
        await authenticate(await withOptions({ secure: false }), token, 'shop.example.com'),
      );
      expect(names(insecure)).toEqual(['latchkey_session', 'latchkey_session_jwt']);
      for (const c of insecure) expect(c).not.toMatch(/Secure/);
      const secureLocal = cookiesOf(
        await authenticate(await withOptions({ secure: true }), token, 'localhost'),
      );
      expect(names(secureLocal)).toEqual(['__Host-latchkey_session', '__Host-latchkey_session_jwt']);
    });

    it('a bare cookie a sibling subdomain could set is not read on a production host', async () => {
      const h = await host(app.app_id);
      const attacker = await signIn(h, app.public_token, 'tosser@example.com', 'shop.example.com');
      const [token, jwt] = cookiesOf(attacker).map((c) => c.split(';')[0]!.split('=')[1]);
      for (const path of ['/cookie/me', '/cookie-token/me']) {
        expectErrorShape(
          await request(h)
            .get(path)
            .set('host', 'shop.example.com')
            .set('cookie', `latchkey_session=${token}; latchkey_session_jwt=${jwt}`),
          401,
          'session_required',
        );
      }
    });

    it('a session cookie name sent twice is refused (400) on every method, with the cookies cleared', async () => {
      const h = await host(app.app_id);
      const victim = await signIn(h, app.public_token, 'tossed-victim@example.com', 'shop.example.com');
      const attacker = await signIn(h, app.public_token, 'tossed-attacker@example.com', 'shop.example.com');
      const [vToken, vJwt] = cookiesOf(victim).map((c) => c.split(';')[0]);
      const [aToken, aJwt] = cookiesOf(attacker).map((c) => c.split(';')[0]);
      const get = (path: string, jar: string) =>
        request(h).get(path).set('host', 'shop.example.com').set('cookie', jar);
      // The victim's JWT is verified once, so the same-tick path would know it.
      expect((await get('/cookie/me', `${vToken}; ${vJwt}`)).status).toBe(200);
      for (const jar of [
        `${aJwt}; ${vToken}; ${vJwt}`,
        `${vJwt}; ${aJwt}`,
        `${aToken}; ${vToken}`,
        `${aToken}; ${vToken}; ${vJwt}`,
      ]) {
        for (const path of ['/cookie/me', '/cookie-token/me']) {
          const res = await get(path, jar);
          expectErrorShape(res, 400, 'repeated_session_cookie');
          expect(cookiesOf(res).map((c) => c.split(';')[0])).toEqual([
            '__Host-latchkey_session=',
            '__Host-latchkey_session_jwt=',
          ]);
        }
        expectErrorShape(
          await request(h)
            .post('/cookie/transfer')
            .set('host', 'shop.example.com')
            .set('origin', 'http://shop.example.com')
            .set('cookie', jar),
          400,
          'repeated_session_cookie',
        );
      }
      // Another cookie of any other name, repeated, is not the session's business.
      expect((await get('/cookie/me', `theme=a; ${vToken}; ${vJwt}; theme=b`)).status).toBe(200);
    });
  });

  describe('behind a TLS proxy', () => {
    it('an https Origin or Referer of the own host on what the framework sees as http: a clear 403 and one log line', async () => {
      const h = await host(app.app_id);
      const s = await signIn(h, app.public_token, 'proxy@example.com', 'shop.example.com');
      const jar = cookieHeader(cookiesOf(s));
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const post = () =>
        request(h).post('/cookie/transfer').set('host', 'shop.example.com').set('cookie', jar);
      const first = await post().set('origin', 'https://shop.example.com');
      expectErrorShape(first, 403, 'https_behind_untrusted_proxy');
      expect(first.body.error_message).toMatch(/trust proxy/);
      expectErrorShape(
        await post().set('referer', 'https://shop.example.com/cart'),
        403,
        'https_behind_untrusted_proxy',
      );
      expectErrorShape(
        await post().set('origin', 'https://shop.example.com'),
        403,
        'https_behind_untrusted_proxy',
      );
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/trust proxy.*docs\/host-sessions\.md/);
      warn.mockRestore();
      // Another host over https, or a cross-site referer: the plain CSRF refusal.
      expectErrorShape(
        await post().set('origin', 'https://shop.example.com:8443'),
        403,
        'cross_site_request',
      );
      expectErrorShape(await post().set('origin', 'https://evil.example'), 403, 'cross_site_request');
      expectErrorShape(
        await post().set('referer', 'https://evil.example/shop.example.com'),
        403,
        'cross_site_request',
      );
      expectErrorShape(await post().set('referer', 'not a url'), 403, 'cross_site_request');

      // With its trust-proxy setting, the framework knows the request was https: the same POST passes.
      const trusted = await host(app.app_id, true);
      const ok = await request(trusted)
        .post('/cookie/transfer')
        .set('host', 'shop.example.com')
        .set('x-forwarded-proto', 'https')
        .set('origin', 'https://shop.example.com')
        .set('cookie', jar);
      expect(ok.status).toBe(200);
      expect(ok.body.user_id).toBe(s.body.user_id);
    });

    it('Secure where the browser used https, even when the proxy forwards Host: localhost', async () => {
      const h = await host(app.app_id);
      const s = await signIn(h, app.public_token, 'proxy-secure@example.com');
      const authenticate = () =>
        request(h)
          .post('/auth/v1/auth/sessions/authenticate')
          .set('host', 'localhost:3000')
          .set('authorization', `Bearer ${app.public_token}`)
          .send({ session_token: s.body.session_token });
      for (const [name, value] of [
        ['origin', 'https://shop.example.com'],
        ['referer', 'https://shop.example.com/signin'],
        ['x-forwarded-proto', 'https'],
        ['x-forwarded-proto', 'HTTPS, http'],
      ] as const) {
        const set = cookiesOf(await authenticate().set(name, value));
        expect(set, `${name}: ${value}`).toHaveLength(2);
        for (const c of set) expect(c, `${name}: ${value}`).toMatch(/; Secure/);
      }
      for (const [name, value] of [
        ['origin', 'http://localhost:3000'],
        ['x-forwarded-proto', 'http'],
        ['x-forwarded-proto', 'http, https'],
      ] as const) {
        for (const c of cookiesOf(await authenticate().set(name, value)))
          expect(c, `${name}: ${value}`).not.toMatch(/Secure/);
      }
    });
  });

  describe('CSRF on cookie-authenticated state-changing requests', () => {
    it('refuses a cross-site POST, accepts the own or an allowed origin; Bearer requests are not cookie-borne', async () => {
      const h = await host(app.app_id);
      const s = await signIn(h, app.public_token, 'csrf@example.com', 'shop.example.com');
      const jar = cookieHeader(cookiesOf(s));
      expect(jar).toMatch(/^__Host-latchkey_session=/);
      const post = () =>
        request(h).post('/cookie/transfer').set('host', 'shop.example.com').set('cookie', jar);

      expectErrorShape(await post().set('origin', 'https://evil.example'), 403, 'cross_site_request');
      expectErrorShape(await post().set('sec-fetch-site', 'cross-site'), 403, 'cross_site_request');
      expectErrorShape(await post(), 403, 'cross_site_request');
      expectErrorShape(await post().set('origin', 'null'), 403, 'cross_site_request');
      expect((await post().set('origin', 'http://shop.example.com')).status).toBe(200);
      expect((await post().set('origin', 'https://app.example.com')).status).toBe(200);
      expect((await post().set('sec-fetch-site', 'same-origin')).status).toBe(200);
      // Reads are not checked; a Bearer credential is not sent by the browser on its own.
      expect(
        (
          await request(h)
            .get('/cookie/me')
            .set('host', 'shop.example.com')
            .set('cookie', jar)
            .set('origin', 'https://evil.example')
        ).status,
      ).toBe(200);
      const bearer = await request(h)
        .post('/cookie/transfer')
        .set('authorization', `Bearer ${s.body.session_jwt}`)
        .set('origin', 'https://evil.example');
      expect(bearer.status).toBe(200);
      // Logging out is state-changing too.
      expectErrorShape(
        await request(h)
          .post('/logout')
          .set('host', 'shop.example.com')
          .set('cookie', jar)
          .set('origin', 'https://evil.example'),
        403,
        'cross_site_request',
      );
    });

    it('PUT, PATCH and DELETE are state-changing too: refused cross-site, accepted from the own origin', async () => {
      const h = await host(app.app_id);
      const s = await signIn(h, app.public_token, 'csrf-methods@example.com', 'shop.example.com');
      const jar = cookieHeader(cookiesOf(s));
      for (const method of ['put', 'patch', 'delete'] as const) {
        const send = () =>
          request(h)[method]('/cookie/any').set('host', 'shop.example.com').set('cookie', jar);
        expectErrorShape(await send().set('origin', 'https://evil.example'), 403, 'cross_site_request');
        expectErrorShape(await send().set('sec-fetch-site', 'cross-site'), 403, 'cross_site_request');
        expectErrorShape(await send(), 403, 'cross_site_request');
        const own = await send().set('origin', 'http://shop.example.com');
        expect(own.status, method).toBe(200);
        expect(own.body.user_id).toBe(s.body.user_id);
      }
      // OPTIONS changes nothing: not checked.
      expect(
        (
          await request(h)
            .options('/cookie/any')
            .set('host', 'shop.example.com')
            .set('cookie', jar)
            .set('origin', 'https://evil.example')
        ).status,
      ).toBe(200);
    });
  });

  describe('app_id', () => {
    /** A host app whose routes all take the same options (and token mode, and cookies). */
    const hostOf = (options: SessionOptions) =>
      mount(latchkey, {
        routes: [
          { method: 'GET', path: '/me', guard: 'require', options },
          { method: 'GET', path: '/token/me', guard: 'require', options: { ...options, mode: 'token' } },
          { method: 'GET', path: '/cookie/me', guard: 'require', options: { ...options, cookies: true } },
        ],
      });

    it('left out with several Apps: each session is checked against its own App, never a 500', async () => {
      const h = await hostOf({});
      const mine = await signIn(h, app.public_token, 'two-apps-mine@example.com');
      const theirs = await signIn(h, otherApp.public_token, 'two-apps-theirs@example.com');
      for (const [s, appId] of [
        [mine, app.app_id],
        [theirs, otherApp.app_id],
      ] as const) {
        for (const [path, headers] of [
          ['/me', { authorization: `Bearer ${s.body.session_jwt}` }],
          ['/me', { authorization: `Bearer ${s.body.session_token}` }],
          ['/token/me', { authorization: `Bearer ${s.body.session_jwt}` }],
          ['/token/me', { authorization: `Bearer ${s.body.session_token}` }],
          ['/cookie/me', { cookie: cookieHeader(cookiesOf(s)) }],
        ] as const) {
          const res = await request(h).get(path).set(headers);
          expect(res.status, `${path} ${JSON.stringify(headers).slice(0, 40)}`).toBe(200);
          expect(res.body).toMatchObject({
            app_id: appId,
            user_id: s.body.user_id,
            session_id: s.body.session.id,
          });
        }
      }
    });

    it('given: another App’s session gets the documented 401', async () => {
      const h = await hostOf({ app_id: app.app_id });
      const theirs = await signIn(h, otherApp.public_token, 'two-apps-other@example.com');
      for (const [path, credential, errorType] of [
        ['/me', theirs.body.session_jwt, 'invalid_session_jwt'],
        ['/me', theirs.body.session_token, 'session_not_found'],
        ['/token/me', theirs.body.session_jwt, 'invalid_session_jwt'],
        ['/token/me', theirs.body.session_token, 'session_not_found'],
      ] as const) {
        expectErrorShape(
          await request(h).get(path).set('authorization', `Bearer ${credential}`),
          401,
          errorType,
        );
      }
      // The JWT cookie fails for this App, and so does the token cookie beside it.
      expectErrorShape(
        await request(h)
          .get('/cookie/me')
          .set('cookie', cookieHeader(cookiesOf(theirs))),
        401,
        'session_not_found',
      );
    });

    it('malformed credentials with several Apps: the documented 401 in JSON, not a 500 or an HTML page', async () => {
      const h = await hostOf({});
      for (const [credential, errorType] of [
        ['abc.def.ghi', 'invalid_session_jwt'],
        ['eyJhbGciOiJFUzI1NiJ9.eyJhdWQiOiJhcHBfbm9uZSJ9.c2ln', 'invalid_session_jwt'],
        ['lks_not_a_session', 'session_not_found'],
        ['x', 'session_not_found'],
      ] as const) {
        for (const path of ['/me', '/token/me']) {
          const res = await request(h).get(path).set('authorization', `Bearer ${credential}`);
          expect(res.headers['content-type']).toMatch(/^application\/json/);
          expectErrorShape(res, 401, errorType);
        }
      }
      expectErrorShape(
        await request(h).get('/cookie/me').set('cookie', 'latchkey_session_jwt=abc.def.ghi'),
        401,
        'invalid_session_jwt',
      );
    });
  });
}
