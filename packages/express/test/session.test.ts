import { createLatchkey, type OutboundMessage } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { latchkeyRouter, optionalSession, requireSession, revokeSession } from '../src/index.js';

const sent: OutboundMessage[] = [];
const latchkey = createLatchkey({
  storage: memoryStorage(),
  secret: 'x'.repeat(40),
  sender: { send: async (m) => void sent.push(m) },
});
let app: { app_id: string; public_token: string; secret_key: string };
let otherApp: { app_id: string; public_token: string };

/** A real host app: Latchkey's router with cookies, and the host's own routes behind the helpers. */
function host(appId: string) {
  const h = express();
  h.use('/auth', latchkeyRouter(latchkey, { cookies: true }));
  const who = (req: express.Request, res: express.Response) => {
    res.json({ user_id: req.auth?.user_id ?? null, session_id: req.auth?.session_id ?? null });
  };
  h.get('/jwt/me', requireSession(latchkey, { app_id: appId }), who);
  h.get('/token/me', requireSession(latchkey, { app_id: appId, mode: 'token' }), who);
  h.get('/maybe/me', optionalSession(latchkey, { app_id: appId }), who);
  h.get('/cookie/me', requireSession(latchkey, { app_id: appId, cookies: true }), who);
  h.get('/cookie-token/me', requireSession(latchkey, { app_id: appId, mode: 'token', cookies: true }), who);
  h.post('/cookie/transfer', requireSession(latchkey, { app_id: appId, cookies: true }), who);
  h.post('/logout', revokeSession(latchkey, { app_id: appId, cookies: true }));
  return h;
}

async function signIn(h: express.Express, publicToken: string, email: string) {
  const send = await request(h)
    .post('/auth/v1/auth/otps/email/login_or_create')
    .set('authorization', `Bearer ${publicToken}`)
    .send({ email });
  const code = sent.filter((m) => m.to === email).at(-1)!.code!;
  const verify = await request(h)
    .post('/auth/v1/auth/otps/verify')
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
    settings: { cors: { allowed_origins: ['https://app.example.com'] } },
  });
  otherApp = await latchkey.apps.create({ name: 'Other host' });
});
afterAll(() => {
  vi.useRealTimers();
});

const advance = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);

describe('requireSession and optionalSession on a host Express app', () => {
  it('no credential: 401 in the documented shape; optionalSession carries on without req.auth', async () => {
    const h = host(app.app_id);
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
    const h = host(app.app_id);
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
      expect(res.body).toEqual({ user_id: s.body.user_id, session_id: s.body.session.id });
    }
  });

  it('a revoked session: 401 at once in token mode, accepted until exp in jwt mode', async () => {
    const h = host(app.app_id);
    const s = await signIn(h, app.public_token, 'revoked@example.com');
    const jwt = s.body.session_jwt;
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
    expect((await request(h).get('/jwt/me').set('authorization', `Bearer ${jwt}`)).status).toBe(200);
    advance(300);
    expectErrorShape(
      await request(h).get('/jwt/me').set('authorization', `Bearer ${jwt}`),
      401,
      'invalid_session_jwt',
    );
  });

  it('an expired JWT and another App’s JWT: 401', async () => {
    const h = host(app.app_id);
    const mine = await signIn(h, app.public_token, 'expired@example.com');
    const theirs = await signIn(host(otherApp.app_id), otherApp.public_token, 'other@example.com');
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
    const h = host(app.app_id);
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

  it('Secure except on localhost', async () => {
    const h = host(app.app_id);
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
    const h = host(app.app_id);
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

describe('CSRF on cookie-authenticated state-changing requests', () => {
  it('refuses a cross-site POST, accepts the own or an allowed origin; Bearer requests are not cookie-borne', async () => {
    const h = host(app.app_id);
    const s = await signIn(h, app.public_token, 'csrf@example.com');
    const jar = cookieHeader(cookiesOf(s));
    const post = () => request(h).post('/cookie/transfer').set('host', 'shop.example.com').set('cookie', jar);

    expectErrorShape(await post().set('origin', 'https://evil.example'), 403, 'cross_site_request');
    expectErrorShape(await post().set('sec-fetch-site', 'cross-site'), 403, 'cross_site_request');
    expectErrorShape(await post(), 403, 'cross_site_request');
    expectErrorShape(await post().set('origin', 'null'), 403, 'cross_site_request');
    expect((await post().set('origin', 'http://shop.example.com')).status).toBe(200);
    expect((await post().set('origin', 'https://app.example.com')).status).toBe(200);
    expect((await post().set('sec-fetch-site', 'same-origin')).status).toBe(200);
    // Reads are not checked; a Bearer credential is not sent by the browser on its own.
    expect(
      (await request(h).get('/cookie/me').set('cookie', jar).set('origin', 'https://evil.example')).status,
    ).toBe(200);
    const bearer = await request(h)
      .post('/cookie/transfer')
      .set('authorization', `Bearer ${s.body.session_jwt}`)
      .set('origin', 'https://evil.example');
    expect(bearer.status).toBe(200);
    // Logging out is state-changing too.
    expectErrorShape(
      await request(h).post('/logout').set('cookie', jar).set('origin', 'https://evil.example'),
      403,
      'cross_site_request',
    );
  });
});

describe('app_id', () => {
  it('may be left out when the instance holds one App, and must be given otherwise', async () => {
    const single = createLatchkey({
      storage: memoryStorage(),
      secret: 'y'.repeat(40),
      sender: { send: async (m) => void sent.push(m) },
    });
    const only = await single.apps.create({ name: 'Only' });
    const s = await single.sessions.issue(
      only.app_id,
      (await single.users.create(only.app_id, { email: 'only@example.com' })).user_id,
      {
        type: 'otp',
        delivery_channel: 'email',
        method: {
          method_id: 'email_1',
          method_type: 'email',
          email_id: 'email_1',
          email: 'only@example.com',
          last_verified_at: 0,
        },
      },
      { session_expires_in: 60 },
    );
    const h = express().get('/me', requireSession(single), (req, res) => {
      res.json({ user_id: req.auth?.user_id });
    });
    h.use((_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ misconfigured: true });
    });
    const ok = await request(h).get('/me').set('authorization', `Bearer ${s.session_jwt}`);
    expect(ok.body.user_id).toBe(s.session!.user_id);
    await single.apps.create({ name: 'Second' });
    const h2 = express().get('/me', requireSession(single), (_req, res) => {
      res.json({});
    });
    h2.use((_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ misconfigured: true });
    });
    expect((await request(h2).get('/me').set('authorization', `Bearer ${s.session_jwt}`)).body).toEqual({
      misconfigured: true,
    });
  });
});

describe('requireSession on a JWT verified before', () => {
  it('calls the next handler in the same tick, with the same req.auth as the first (async) check', async () => {
    const h = host(app.app_id);
    const verify = await signIn(h, app.public_token, 'same-tick@example.com');
    const jwt = verify.body.session_jwt as string;
    const middleware = requireSession(latchkey, { app_id: app.app_id });
    const fakeReq = () =>
      ({ method: 'GET', headers: { authorization: `Bearer ${jwt}` } }) as unknown as express.Request;
    const res = {} as express.Response;
    const first = fakeReq();
    await new Promise<void>((resolve, reject) =>
      middleware(first, res, (err?: unknown) => (err ? reject(err) : resolve())),
    );
    const second = fakeReq();
    let calledSync = false;
    middleware(second, res, () => {
      calledSync = true;
    });
    expect(calledSync).toBe(true);
    expect(second.auth).toEqual(first.auth);
    expect(second.auth?.user_id).toBe(verify.body.user_id);
  });

  it('takes the JWT cookie in the same tick on GET, never on a POST (which the CSRF check must see)', async () => {
    const h = host(app.app_id);
    const verify = await signIn(h, app.public_token, 'same-tick-cookie@example.com');
    const jwt = verify.body.session_jwt as string;
    const middleware = requireSession(latchkey, { app_id: app.app_id, cookies: true });
    const cookieReq = (method: string) =>
      ({
        method,
        protocol: 'http',
        hostname: '127.0.0.1',
        get: (name: string) => (name.toLowerCase() === 'host' ? '127.0.0.1' : undefined),
        headers: { cookie: `latchkey_session_jwt=${jwt}`, origin: 'http://127.0.0.1', host: '127.0.0.1' },
      }) as unknown as express.Request;
    const res = { append: () => res } as unknown as express.Response;
    const first = cookieReq('GET');
    await new Promise<void>((resolve, reject) =>
      middleware(first, res, (err?: unknown) => (err ? reject(err) : resolve())),
    );
    let getSync = false;
    middleware(cookieReq('GET'), res, () => {
      getSync = true;
    });
    expect(getSync).toBe(true);

    const post = cookieReq('POST');
    let postCalled = false;
    const done = new Promise<void>((resolve, reject) =>
      middleware(post, res, (err?: unknown) => {
        postCalled = true;
        return err ? reject(err) : resolve();
      }),
    );
    expect(postCalled).toBe(false);
    await done;
    expect(post.auth?.user_id).toBe(verify.body.user_id);
  });
});
