import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createLatchkey, type Factor, type Latchkey } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { checkSession, getSession, latchkeyHandlers, withSession } from '@latchkey/next';
import { verifyEdgeSession } from '@latchkey/next/edge';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const ORIGIN = 'http://localhost:3000';
const factor: Factor = {
  type: 'otp',
  delivery_channel: 'email',
  method: {
    method_id: 'email_x',
    method_type: 'email',
    email_id: 'email_x',
    email: 'x@example.com',
    last_verified_at: 0,
  },
};

let latchkey: Latchkey;
let other: Latchkey;
let appId: string;
let publicToken: string;
let secretKey: string;
let otherAppId: string;
let jwksServer: Server;
let jwksBase: string;

async function signIn(instance: Latchkey, app: string, email: string) {
  const user = await instance.users.create(app, { email });
  const issued = await instance.sessions.issue(app, user.user_id, factor, { session_expires_in: 60 });
  return {
    userId: user.user_id,
    sessionId: issued.session!.id,
    token: issued.session_token as string,
    jwt: issued.session_jwt as string,
  };
}

beforeAll(async () => {
  latchkey = createLatchkey({ storage: memoryStorage(), secret: 'next-session-test-secret-0123456789' });
  const app = await latchkey.apps.create({
    name: 'Host',
    settings: {
      cors: { allowed_origins: ['https://app.example.com'] },
      organizations: { roles: { billing: ['invoices:read'] } },
    },
  });
  appId = app.app_id;
  publicToken = app.public_token;
  secretKey = app.secret_key;
  other = createLatchkey({ storage: memoryStorage(), secret: 'other-session-test-secret-0123456789' });
  otherAppId = (await other.apps.create({ name: 'Other' })).app_id;
  // The App's JWKS served over HTTP, as the edge helper fetches it in production.
  jwksServer = createServer((req, res) => {
    const headers = new Headers();
    if (req.headers.authorization) headers.set('authorization', req.headers.authorization);
    latchkey.fetch(new Request(`http://127.0.0.1${req.url}`, { headers })).then(async (r) => {
      res.writeHead(r.status, { 'content-type': 'application/json' });
      res.end(await r.text());
    });
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksBase = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  vi.useRealTimers();
  await new Promise((resolve) => jwksServer.close(resolve));
});

const bearer = (credential: string) => new Headers({ authorization: `Bearer ${credential}` });

async function expectError(res: Response, status: number, errorType: string) {
  expect(res.status).toBe(status);
  const body = await res.json();
  expect(body).toEqual({
    status_code: status,
    request_id: res.headers.get('x-request-id'),
    error_type: errorType,
    error_message: expect.any(String),
  });
}

describe('getSession', () => {
  it('reads a bearer JWT or token; app_id may be left out with one App; null without one', async () => {
    const s = await signIn(latchkey, appId, 'bearer@example.com');
    for (const credential of [s.jwt, s.token]) {
      const auth = await getSession(latchkey, new Request(`${ORIGIN}/me`, { headers: bearer(credential) }));
      expect(auth).toMatchObject({ app_id: appId, user_id: s.userId, session_id: s.sessionId });
      // When the user last proved a factor on this session, and which factors: for step-up checks.
      expect(auth?.auth_time).toBe(factor.method.last_verified_at);
      expect(auth?.factors.map((f) => f.type)).toEqual(['otp']);
    }
    // Step-up options make their own resolver: the fixture's factor was proven at 0, long ago.
    // getSession says null; checkSession says why, for a page that offers to re-prove.
    expect(await getSession(latchkey, { headers: bearer(s.jwt) }, { freshWithin: '5m' })).toBeNull();
    const stale = await checkSession(latchkey, { headers: bearer(s.jwt) }, { freshWithin: '5m' });
    expect(stale.session.kind === 'error' && stale.session.error.errorType).toBe('step_up_required');
    expect((await getSession(latchkey, { headers: bearer(s.jwt) }))?.user_id).toBe(s.userId);
    // A server component passes its headers alone.
    expect((await getSession(() => latchkey, { headers: bearer(s.jwt) }))?.user_id).toBe(s.userId);
    expect(await getSession(latchkey, new Request(`${ORIGIN}/me`))).toBeNull();
  });

  it('a revoked session: null at once, in token mode and in jwt mode', async () => {
    const s = await signIn(latchkey, appId, 'revoked@example.com');
    const req = () => ({ headers: bearer(s.jwt) });
    expect((await getSession(latchkey, req(), { app_id: appId, mode: 'jwt' }))?.user_id).toBe(s.userId);
    await latchkey.sessions.revoke(appId, { session_id: s.sessionId });
    expect(await getSession(latchkey, req(), { mode: 'token' })).toBeNull();
    expect(await getSession(latchkey, req(), { app_id: appId, mode: 'jwt' })).toBeNull();
  });

  it('another App’s JWT: null', async () => {
    const theirs = await signIn(other, otherAppId, 'other@example.com');
    expect(await getSession(latchkey, { headers: bearer(theirs.jwt) })).toBeNull();
    const checked = await checkSession(latchkey, { headers: bearer(theirs.jwt) });
    expect(checked.session).toMatchObject({ kind: 'error' });
  });
});

describe('withSession', () => {
  const handler = () =>
    withSession(latchkey, (_req, auth) => Response.json({ user_id: auth.user_id }), { mode: 'token' });

  it('401 in the documented shape without a live session, 200 with one', async () => {
    await expectError(await handler()(new Request(`${ORIGIN}/me`), {}), 401, 'session_required');
    const s = await signIn(latchkey, appId, 'with@example.com');
    const ok = await handler()(new Request(`${ORIGIN}/me`, { headers: bearer(s.jwt) }), {});
    expect(await ok.json()).toEqual({ user_id: s.userId });
    await latchkey.sessions.revoke(appId, { session_jwt: s.jwt });
    await expectError(
      await handler()(new Request(`${ORIGIN}/me`, { headers: bearer(s.jwt) }), {}),
      401,
      'session_not_found',
    );
  });
});

describe('withSession in an organization', () => {
  const api = async (path: string, body: unknown, key = secretKey) => {
    const res = await latchkey.fetch(
      new Request(`http://latchkey.test${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, any>;
  };
  const invoices = (mode: 'jwt' | 'token') =>
    withSession(latchkey, (_req, auth) => Response.json({ roles: auth.roles }), {
      mode,
      permission: 'invoices:read',
    });
  const call = (handler: ReturnType<typeof invoices>, credential: string) =>
    handler(new Request(`${ORIGIN}/invoices`, { headers: bearer(credential) }), {});

  it('403 permission_denied without an organization session or the permission; 200 with it, in both modes', async () => {
    const owner = await signIn(latchkey, appId, 'next-org-owner@example.com');
    const member = await signIn(latchkey, appId, 'next-org-member@example.com');
    const org = await api('/v1/organizations', {
      name: 'Acme',
      slug: 'acme-next',
      owner_user_id: owner.userId,
    });
    await api(`/v1/organizations/${org.organization_id}/members`, {
      user_id: member.userId,
      roles: ['member'],
    });
    const exchange = (s: { token: string }) =>
      api(
        `/v1/organizations/${org.organization_id}/sessions/exchange`,
        { session_token: s.token },
        publicToken,
      );

    for (const mode of ['jwt', 'token'] as const) {
      await expectError(await call(invoices(mode), owner.jwt), 403, 'permission_denied');
    }
    const asMember = await exchange(member);
    for (const mode of ['jwt', 'token'] as const) {
      for (let i = 0; i < 2; i++)
        await expectError(await call(invoices(mode), asMember.session_jwt), 403, 'permission_denied');
    }
    expect(
      await getSession(latchkey, { headers: bearer(asMember.session_jwt) }, { permission: 'invoices:read' }),
    ).toBeNull();
    expect(
      (
        await getSession(
          latchkey,
          { headers: bearer(asMember.session_jwt) },
          { organization: org.organization_id },
        )
      )?.organization_id,
    ).toBe(org.organization_id);

    const asOwner = await exchange(owner);
    for (const mode of ['jwt', 'token'] as const) {
      for (let i = 0; i < 2; i++) {
        const ok = await call(invoices(mode), asOwner.session_jwt);
        expect(ok.status).toBe(200);
        expect(await ok.json()).toEqual({ roles: ['owner'] });
      }
    }
  });
});

describe('cookies', () => {
  const cookieJar = (res: Response) =>
    res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');

  it('set by the handlers on authenticate, read and refreshed by withSession, cleared on revoke; CSRF refused', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { POST } = latchkeyHandlers(latchkey, { cookies: true });
    const s = await signIn(latchkey, appId, 'cookies@example.com');
    const auth = await POST(
      new Request(`${ORIGIN}/api/v1/auth/sessions/authenticate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${publicToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ session_token: s.token }),
      }),
    );
    expect(auth.status).toBe(200);
    const set = auth.headers.getSetCookie();
    expect(set).toHaveLength(2);
    for (const c of set) expect(c).toMatch(/HttpOnly; SameSite=Lax$/); // localhost: not Secure
    const jar = cookieJar(auth);

    const route = withSession(latchkey, (_req, a) => Response.json({ user_id: a.user_id }), {
      mode: 'token',
      cookies: true,
    });
    const used = await route(new Request(`${ORIGIN}/me`, { headers: { cookie: jar } }), {});
    expect(await used.json()).toEqual({ user_id: s.userId });
    expect(used.headers.getSetCookie()).toEqual([]);

    vi.setSystemTime(Date.now() + 200_000); // past half the JWT's life: a fresh JWT cookie
    const refreshed = await route(new Request(`${ORIGIN}/me`, { headers: { cookie: jar } }), {});
    expect(refreshed.status).toBe(200);
    const fresh = refreshed.headers.getSetCookie();
    expect(fresh).toHaveLength(1);
    expect(fresh[0]).toMatch(/^latchkey_session_jwt=/);

    const write = (headers: Record<string, string>) =>
      route(new Request(`${ORIGIN}/transfer`, { method: 'POST', headers: { cookie: jar, ...headers } }), {});
    await expectError(await write({ origin: 'https://evil.example' }), 403, 'cross_site_request');
    expect((await write({ origin: 'https://app.example.com' })).status).toBe(200);
    expect((await write({ origin: ORIGIN })).status).toBe(200);

    const revoked = await POST(
      new Request(`${ORIGIN}/api/v1/auth/sessions/revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${publicToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ session_token: s.token }),
      }),
    );
    expect(revoked.status).toBe(200);
    const cleared = revoked.headers.getSetCookie();
    expect(cleared).toHaveLength(2);
    for (const c of cleared) expect(c).toMatch(/=; .*Max-Age=0/);
    const after = await route(new Request(`${ORIGIN}/me`, { headers: { cookie: jar } }), {});
    await expectError(after, 401, 'session_not_found');
    expect(after.headers.getSetCookie()).toHaveLength(2); // dead cookies are dropped
    vi.useRealTimers();
  });
});

describe('several Apps on one instance', () => {
  it('getSession without app_id takes each session’s own App; with app_id the other App’s is refused', async () => {
    const second = await latchkey.apps.create({ name: 'Second host' });
    const mine = await signIn(latchkey, appId, 'apps-mine@example.com');
    const theirs = await signIn(latchkey, second.app_id, 'apps-theirs@example.com');
    for (const [s, app] of [
      [mine, appId],
      [theirs, second.app_id],
    ] as const) {
      for (const mode of ['jwt', 'token'] as const) {
        for (const credential of [s.jwt, s.token]) {
          const auth = await getSession(latchkey, { headers: bearer(credential) }, { mode });
          expect(auth, `${mode} ${credential.slice(0, 8)}`).toMatchObject({ app_id: app, user_id: s.userId });
        }
      }
    }
    for (const [credential, errorType] of [
      [theirs.jwt, 'invalid_session_jwt'],
      [theirs.token, 'session_not_found'],
    ] as const) {
      const { session } = await checkSession(latchkey, { headers: bearer(credential) }, { app_id: appId });
      expect(session).toMatchObject({ kind: 'error', error: { errorType } });
    }
    const route = withSession(latchkey, (_req, auth) => Response.json({ app_id: auth.app_id }));
    for (const [credential, errorType] of [
      ['abc.def.ghi', 'invalid_session_jwt'],
      ['lks_made_up', 'session_not_found'],
    ] as const) {
      await expectError(
        await route(new Request(`${ORIGIN}/me`, { headers: bearer(credential) }), {}),
        401,
        errorType,
      );
    }
    expect(
      await (await route(new Request(`${ORIGIN}/me`, { headers: bearer(theirs.jwt) }), {})).json(),
    ).toEqual({
      app_id: second.app_id,
    });
  });
});

describe('cookies on a production origin', () => {
  it('__Host- names with Secure; a name sent twice is refused with 400', async () => {
    const { POST } = latchkeyHandlers(latchkey, { cookies: true });
    const s = await signIn(latchkey, appId, 'prod-cookies@example.com');
    const auth = await POST(
      new Request('https://shop.example.com/api/v1/auth/sessions/authenticate', {
        method: 'POST',
        headers: { authorization: `Bearer ${publicToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ session_token: s.token }),
      }),
    );
    const set = auth.headers.getSetCookie();
    expect(set.map((c) => c.split('=')[0])).toEqual([
      '__Host-latchkey_session',
      '__Host-latchkey_session_jwt',
    ]);
    for (const c of set) expect(c).toMatch(/; Secure; SameSite=Lax$/);
    const jar = set.map((c) => c.split(';')[0]).join('; ');
    const route = withSession(latchkey, (_req, a) => Response.json({ user_id: a.user_id }), {
      cookies: true,
    });
    const get = (cookie: string) =>
      route(new Request('https://shop.example.com/me', { headers: { cookie } }), {});
    expect(await (await get(jar)).json()).toEqual({ user_id: s.userId });
    const tossed = await get(`${jar}; __Host-latchkey_session_jwt=x.y.z`);
    await expectError(tossed, 400, 'repeated_session_cookie');
    expect(tossed.headers.getSetCookie()).toHaveLength(2);
    await expectError(await get(jar.replaceAll('__Host-', '')), 401, 'session_required');
  });
});

describe('@latchkey/next/edge', () => {
  const options = () => ({ jwksUrl: `${jwksBase}/v1/auth/sessions/jwks/${appId}`, appId });

  it('verifies a bearer or cookie JWT with the App’s JWKS; refuses none, another App’s, a token', async () => {
    const s = await signIn(latchkey, appId, 'edge@example.com');
    expect(await verifyEdgeSession({ headers: bearer(s.jwt) }, options())).toEqual({
      session: expect.objectContaining({ app_id: appId, user_id: s.userId, session_id: s.sessionId }),
    });
    const cookie = new Headers({ host: 'shop.example.com', cookie: `__Host-latchkey_session_jwt=${s.jwt}` });
    expect(
      (await verifyEdgeSession({ headers: cookie }, { ...options(), cookies: true })).session?.user_id,
    ).toBe(s.userId);
    // On localhost the names are bare; on a production host a bare name is not read (a sibling
    // subdomain could have set it), and a name sent twice means no session.
    const local = new Headers({ host: 'localhost:3000', cookie: `latchkey_session_jwt=${s.jwt}` });
    expect(
      (await verifyEdgeSession({ headers: local }, { ...options(), cookies: true })).session?.user_id,
    ).toBe(s.userId);
    for (const jar of [
      `latchkey_session_jwt=${s.jwt}`,
      `__Host-latchkey_session_jwt=${s.jwt}; __Host-latchkey_session_jwt=${s.jwt}`,
    ]) {
      const headers = new Headers({ host: 'shop.example.com', cookie: jar });
      expect(await verifyEdgeSession({ headers }, { ...options(), cookies: true })).toEqual({
        session: null,
        refreshable: false,
      });
    }
    const named = new Headers({ host: 'shop.example.com', cookie: `mine=${s.jwt}` });
    expect(
      (await verifyEdgeSession({ headers: named }, { ...options(), cookies: { jwtName: 'mine' } })).session
        ?.user_id,
    ).toBe(s.userId);
    expect((await verifyEdgeSession({ headers: cookie }, options())).session).toBeNull();
    expect(await verifyEdgeSession({ headers: new Headers() }, options())).toEqual({
      session: null,
      refreshable: false,
    });
    const theirs = await signIn(other, otherAppId, 'edge-other@example.com');
    expect((await verifyEdgeSession({ headers: bearer(theirs.jwt) }, options())).session).toBeNull();
    expect((await verifyEdgeSession({ headers: bearer(s.token) }, options())).session).toBeNull();
    // Right keys, wrong audience: a JWT of this App checked for another App id.
    expect(
      (await verifyEdgeSession({ headers: bearer(s.jwt) }, { ...options(), appId: otherAppId })).session,
    ).toBeNull();
  });

  it('asks for step-up as requireSession does: a fresh enough factor of a kind asked for', async () => {
    const now = Math.floor(Date.now() / 1000);
    const user = await latchkey.users.create(appId, { email: 'edge-step-up@example.com' });
    const jwtProvenAt = async (at: number) => {
      const proven = { ...factor, method: { ...factor.method, last_verified_at: at } };
      return (await latchkey.sessions.issue(appId, user.user_id, proven, { session_expires_in: 60 }))
        .session_jwt as string;
    };
    const fresh = await jwtProvenAt(now);
    const stale = await jwtProvenAt(now - 600);
    const check = (jwt: string, asked: { freshWithin?: number | string; factors?: string[] }) =>
      verifyEdgeSession({ headers: bearer(jwt) }, { ...options(), ...asked });
    const refused = { session: null, refreshable: false, stepUpRequired: true };

    expect((await check(fresh, { freshWithin: '5m' })).session?.user_id).toBe(user.user_id);
    expect(await check(stale, { freshWithin: '5m' })).toEqual(refused);
    expect((await check(stale, { freshWithin: 900 })).session?.user_id).toBe(user.user_id);
    expect((await check(stale, { factors: ['otp'] })).session?.user_id).toBe(user.user_id);
    expect(await check(fresh, { factors: ['webauthn', 'totp'] })).toEqual(refused);
    expect(await check(stale, { freshWithin: '5m', factors: ['otp'] })).toEqual(refused);
    // Nothing asked: the stale session is a session.
    expect((await check(stale, {})).session?.user_id).toBe(user.user_id);
    await expect(check(fresh, { freshWithin: '5 minutes' })).rejects.toThrow(TypeError);
  });

  it('an expired JWT cookie beside the token cookie is refreshable', async () => {
    const s = await signIn(latchkey, appId, 'edge-expired@example.com');
    const headers = new Headers({
      host: 'shop.example.com',
      cookie: `__Host-latchkey_session=${s.token}; __Host-latchkey_session_jwt=${s.jwt}`,
    });
    const [, payload] = s.jwt.split('.');
    const { exp } = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime((exp + 1) * 1000);
    expect(await verifyEdgeSession({ headers }, { ...options(), cookies: true })).toEqual({
      session: null,
      refreshable: true,
    });
    vi.useRealTimers();
    // Not refreshable: a JWT cookie that fails for another reason than expiry, or a bearer sent
    // (a token, which the edge cannot check) even with the token cookie beside it.
    const forged = new Headers({
      host: 'shop.example.com',
      cookie: `__Host-latchkey_session=${s.token}; __Host-latchkey_session_jwt=${s.jwt.slice(0, -4)}AAAA`,
    });
    expect(await verifyEdgeSession({ headers: forged }, { ...options(), cookies: true })).toEqual({
      session: null,
      refreshable: false,
    });
    const withBearer = new Headers({
      host: 'shop.example.com',
      authorization: `Bearer ${s.token}`,
      cookie: `__Host-latchkey_session=${s.token}`,
    });
    expect(await verifyEdgeSession({ headers: withBearer }, { ...options(), cookies: true })).toEqual({
      session: null,
      refreshable: false,
    });
  });

  it('with the revocation feed, a revoked session is refused before its JWT expires', async () => {
    const s = await signIn(latchkey, appId, 'edge-revoked@example.com');
    const feed = { url: `${jwksBase}/v1/auth/sessions/revocations`, publicToken, refreshSeconds: 0 };
    const withFeed = { ...options(), revocations: feed };
    expect((await verifyEdgeSession({ headers: bearer(s.jwt) }, withFeed)).session?.session_id).toBe(
      s.sessionId,
    );
    await latchkey.sessions.revoke(appId, { session_id: s.sessionId });
    expect(await verifyEdgeSession({ headers: bearer(s.jwt) }, withFeed)).toEqual({
      session: null,
      refreshable: false,
    });
    // Without the feed the edge knows only the JWT, which is still unexpired.
    expect((await verifyEdgeSession({ headers: bearer(s.jwt) }, options())).session?.session_id).toBe(
      s.sessionId,
    );
    // A feed that cannot be read is the server's fault, as an unreadable JWKS is: it throws.
    const wrongToken = { ...options(), revocations: { ...feed, publicToken: 'pk_test_not_a_token' } };
    await expect(verifyEdgeSession({ headers: bearer(s.jwt) }, wrongToken)).rejects.toThrow(/401/);
  });

  it('bundles to jose and the import-free credential and step-up modules, nothing else', async () => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL('../src/edge.ts', import.meta.url))],
      bundle: true,
      write: false,
      metafile: true,
      // Metafile paths are relative to this: the repository root, wherever vitest was started.
      absWorkingDir: fileURLToPath(new URL('../../..', import.meta.url)),
      format: 'esm',
      platform: 'neutral',
      conditions: ['source'],
      external: ['jose', 'jose/*'],
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs).map((p) => p.replace(/^.*packages\//, ''));
    expect(inputs.sort()).toEqual([
      'core/src/host-sessions/credentials.ts',
      'core/src/shared/step-up-rule.ts',
      'next/src/edge-revocations.ts',
      'next/src/edge.ts',
    ]);
    const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
    expect(imports.sort()).toEqual(['jose/errors', 'jose/jwks/remote', 'jose/jwt/verify']);
  });
});
