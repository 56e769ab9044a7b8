import { createLatchkey, type OutboundMessage } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import express from 'express';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeMountSuite } from '../../../test/host-sessions/routes-suite.js';
import { hostSessionSuite, type Mount, whoBody } from '../../../test/host-sessions/suite.js';
import { latchkeyRouter, optionalSession, requireSession, revokeSession } from '../src/index.js';
import { expressCookieSite } from '../src/session.js';

/** The shared host-session suite's app, written as an Express integrator writes one. */
const mountExpress: Mount = (latchkey, spec) => {
  const h = express();
  if (spec.trustProxy) h.set('trust proxy', 'loopback');
  h.use('/auth', latchkeyRouter(latchkey, { cookies: spec.routerCookies ?? true }));
  const who = (req: express.Request, res: express.Response) => {
    res.json(whoBody(req.auth));
  };
  for (const { method, path, guard, options } of spec.routes) {
    const on = method === 'GET' ? h.get.bind(h) : method === 'POST' ? h.post.bind(h) : h.all.bind(h);
    if (guard === 'revoke') on(path, revokeSession(latchkey, options));
    else on(path, (guard === 'require' ? requireSession : optionalSession)(latchkey, options), who);
  }
  return h;
};

hostSessionSuite('Express', mountExpress);

describe('expressCookieSite', () => {
  it('an https request Express sees itself (its own TLS, or a trusted proxy) counts as https with no header', () => {
    const req = { hostname: 'localhost', protocol: 'https', headers: {} } as unknown as express.Request;
    expect(expressCookieSite(req)).toEqual({ hostname: 'localhost', https: true });
  });
});

const sent: OutboundMessage[] = [];
const latchkey = createLatchkey({
  storage: memoryStorage(),
  secret: 'x'.repeat(40),
  sender: { send: async (m) => void sent.push(m) },
});
let app: { app_id: string; public_token: string };
beforeAll(async () => {
  app = await latchkey.apps.create({ name: 'Host' });
});

/** Signs in through the router and returns the verify answer. */
async function signIn(email: string) {
  const h = express().use('/auth', latchkeyRouter(latchkey));
  const send = await request(h)
    .post('/auth/v1/auth/otps/email/login_or_create')
    .set('authorization', `Bearer ${app.public_token}`)
    .send({ email });
  const code = sent.filter((m) => m.to === email).at(-1)!.code!;
  const verify = await request(h)
    .post('/auth/v1/auth/otps/verify')
    .set('authorization', `Bearer ${app.public_token}`)
    .send({ method_id: send.body.method_id, otp: code, session_expires_in: 60 });
  expect(verify.status).toBe(200);
  return verify;
}

describe('requireSession on a JWT verified before', () => {
  it('calls the next handler in the same tick, with the same req.auth as the first (async) check', async () => {
    const verify = await signIn('same-tick@example.com');
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
    const verify = await signIn('same-tick-cookie@example.com');
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

routeMountSuite('Express', (latchkey) =>
  express()
    .use('/auth', latchkeyRouter(latchkey))
    .get('/me', requireSession(latchkey), (req, res) => {
      res.json({ user_id: req.auth?.user_id });
    })
    .post('/own', express.json(), (req, res) => {
      res.json(req.body);
    }),
);
