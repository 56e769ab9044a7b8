import { createLatchkey } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import express from 'express';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { latchkeyErrorHandler, latchkeyRouter } from '../src/index.js';

const latchkey = createLatchkey({ storage: memoryStorage(), secret: 'x'.repeat(40) });
let keys: { secret_key: string; public_token: string };

beforeAll(async () => {
  keys = await latchkey.apps.create({ name: 'Express test' });
});

const hosts = {
  'without express.json()': () => express().use('/auth', latchkeyRouter(latchkey)),
  'after express.json()': () => express().use(express.json()).use('/auth', latchkeyRouter(latchkey)),
  'after express.text() for every type': () =>
    express()
      .use(express.text({ type: '*/*' }))
      .use('/auth', latchkeyRouter(latchkey)),
};

describe.each(Object.entries(hosts))('latchkeyRouter mounted at /auth, %s', (_name, makeHost) => {
  const host = makeHost();

  it('creates a user over HTTP and reads it back', async () => {
    const email = `ada.${Math.random().toString(36).slice(2)}@Example.com`;
    const created = await request(host)
      .post('/auth/v1/auth/users')
      .set('authorization', `Bearer ${keys.secret_key}`)
      .send({
        email,
        phone_number: '+1 415 555 0100'.replace('0100', String(1000 + Math.floor(Math.random() * 8999))),
        name: { first_name: 'Ada' },
      });
    expect(created.status).toBe(200);
    expect(created.headers['x-request-id']).toMatch(/^req_/);
    expect(created.body.user.emails[0].email).toBe(email.toLowerCase());
    const read = await request(host)
      .get(`/auth/v1/auth/users/${created.body.user_id}`)
      .set('authorization', `Bearer ${keys.secret_key}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body.user);
  });

  it('answers errors in the documented shape', async () => {
    const unknown = await request(host)
      .get('/auth/v1/auth/users/user_nope')
      .set('authorization', `Bearer ${keys.secret_key}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      status_code: 404,
      request_id: unknown.headers['x-request-id'],
      error_type: 'user_not_found',
      error_message: expect.any(String),
    });
    const noKey = await request(host).get('/auth/v1/auth/users/user_nope');
    expect(noKey.status).toBe(401);
    expect(noKey.body.error_type).toBe('unauthorized');
    const bad = await request(host)
      .post('/auth/v1/auth/users')
      .set('authorization', `Bearer ${keys.secret_key}`)
      .send({ email: 42 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error_type: 'invalid_field', error_field: 'email' });
  });

  it('serves health without a key, framed by Content-Length rather than chunks', async () => {
    const res = await request(host).get('/auth/v1/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok' });
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
    expect(res.headers['transfer-encoding']).toBeUndefined();
  });
});

it('answers unknown /v1 paths with Latchkey’s 404 and passes the rest of its mount on', async () => {
  const host = express().use('/auth', latchkeyRouter(latchkey));
  host.get('/other', (_req, res) => {
    res.send('host route');
  });
  host.get('/auth/profile', (_req, res) => {
    res.send('host route under the mount');
  });
  expect((await request(host).get('/other')).text).toBe('host route');
  expect((await request(host).get('/auth/profile')).text).toBe('host route under the mount');
  const unknown = await request(host)
    .get('/auth/v1/nothing-here')
    .set('authorization', `Bearer ${keys.secret_key}`);
  expect(unknown.status).toBe(404);
  expect(unknown.body.error_type).toBe('route_not_found');
  // Outside /v1 and matched by no host route: Express's own 404, not Latchkey's.
  const outside = await request(host).get('/auth/nothing-here');
  expect(outside.status).toBe(404);
  expect(outside.headers['content-type']).toMatch(/^text\/html/);
});

describe('mounted at the root before the host’s own routes', () => {
  const host = express().use(latchkeyRouter(latchkey));
  host.get('/', (_req, res) => {
    res.send('home');
  });
  host.get('/v10/status', (_req, res) => {
    res.send('not the API');
  });
  host.post('/items', express.json(), (req, res) => {
    res.json({ received: req.body });
  });

  it('leaves the host its routes, bodies unread', async () => {
    expect((await request(host).get('/')).text).toBe('home');
    expect((await request(host).get('/v10/status')).text).toBe('not the API');
    const posted = await request(host).post('/items?x=1').send({ a: 1 });
    expect(posted.body).toEqual({ received: { a: 1 } });
  });

  it('serves /v1, its unknown paths as Latchkey’s JSON 404, and paths that decode into /v1', async () => {
    expect((await request(host).get('/v1/health')).body).toMatchObject({ status: 'ok' });
    expect((await request(host).get('/v1/health?probe=1')).body).toMatchObject({ status: 'ok' });
    // Latchkey routes on the decoded path, so the router claims what decodes into /v1 too.
    expect((await request(host).get('/%76%31/health')).body).toMatchObject({ status: 'ok' });
    for (const path of ['/v1', '/v1/nothing-here', '/v1/auth/nothing-here']) {
      const res = await request(host).get(path).set('authorization', `Bearer ${keys.secret_key}`);
      expect(res.status, path).toBe(404);
      expect(res.body, path).toMatchObject({ status_code: 404, error_type: 'route_not_found' });
      expect(res.body.request_id, path).toBe(res.headers['x-request-id']);
    }
  });
});

it('answers every path with Latchkey’s 404 when fallthrough is false', async () => {
  const host = express()
    .use(latchkeyRouter(latchkey, { fallthrough: false }))
    .get('/never', (_req, res) => {
      res.send('unreachable');
    });
  for (const path of ['/never', '/nothing-here', '/v1/nothing-here']) {
    const res = await request(host).get(path).set('authorization', `Bearer ${keys.secret_key}`);
    expect(res.status, path).toBe(404);
    expect(res.body, path).toMatchObject({ status_code: 404, error_type: 'route_not_found' });
  }
  expect((await request(host).get('/v1/health')).body).toMatchObject({ status: 'ok' });
});

describe('behind a host express.json()', () => {
  it('answers the parser’s own failures in the documented shape with latchkeyErrorHandler()', async () => {
    const host = express()
      .use(express.json({ limit: '1kb' }))
      .use('/auth', latchkeyRouter(latchkey), latchkeyErrorHandler());
    const malformed = await request(host)
      .post('/auth/v1/auth/users')
      .set('authorization', `Bearer ${keys.secret_key}`)
      .set('content-type', 'application/json')
      .send('{"email": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({
      status_code: 400,
      request_id: malformed.headers['x-request-id'],
      error_type: 'invalid_json',
      error_message: expect.any(String),
    });
    const large = await request(host)
      .post('/auth/v1/auth/users')
      .set('authorization', `Bearer ${keys.secret_key}`)
      .send({ email: `${'a'.repeat(2000)}@example.com` });
    expect(large.status).toBe(413);
    expect(large.body.error_type).toBe('request_too_large');
  });

  it('leaves other errors to the host', async () => {
    const host = express()
      .use('/auth', latchkeyRouter(latchkey), latchkeyErrorHandler())
      .use((_req, _res, next) => next(new Error('host failure')))
      .use((_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
        res.status(418).send('host handler');
      });
    const res = await request(host).get('/elsewhere');
    expect(res.status).toBe(418);
  });
});

it('passes on the status, every header (each Set-Cookie on its own) and the body as sent', async () => {
  const headers = new Headers({ 'content-type': 'application/octet-stream', 'x-one': 'a' });
  headers.append('set-cookie', 'a=1; Path=/');
  headers.append('set-cookie', 'b=2; Path=/');
  const bytes = new Uint8Array([0, 255, 1, 254]);
  const host = express().use(
    latchkeyRouter({ fetch: async () => new Response(bytes, { status: 202, headers }) }),
  );
  const res = await request(host)
    .get('/v1/anything')
    .buffer(true)
    .parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
  expect(res.status).toBe(202);
  expect(res.headers['x-one']).toBe('a');
  expect(res.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
  expect(new Uint8Array(res.body as Buffer)).toEqual(bytes);
});

it("gives the core the client's address, as Express reads it through trusted proxies, for limits by IP", async () => {
  const app = await latchkey.apps.create({
    name: 'Limits by IP',
    settings: {
      rate_limits: {
        routes: { 'POST /v1/auth/sessions/authenticate': { limit: 1, window_seconds: 60, by: 'ip' } },
      },
    },
  });
  const host = express().set('trust proxy', true).use(latchkeyRouter(latchkey));
  const call = (ip: string) =>
    request(host)
      .post('/v1/auth/sessions/authenticate')
      .set('authorization', `Bearer ${app.secret_key}`)
      .set('x-forwarded-for', ip)
      .send({ session_token: 'lks_unknown' });
  const refused = { status: 401, error_type: 'session_not_found' };
  const answer = async (ip: string) => {
    const res = await call(ip);
    return { status: res.status, error_type: res.body.error_type };
  };
  expect(await answer('203.0.113.1')).toEqual(refused);
  expect(await answer('203.0.113.1')).toEqual({ status: 429, error_type: 'rate_limited' });
  // Another address has its own allowance: the limit is keyed by the forwarded address.
  expect(await answer('203.0.113.2')).toEqual(refused);
});
