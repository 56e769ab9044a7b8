import { createLatchkey, type Latchkey } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { latchkeyHandlers } from '@latchkey/next';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SECRET = 'next-adapter-test-secret-0123456789abcdef';
const ORIGIN = 'http://localhost:3000';

let latchkey: Latchkey;
let keys: { secret_key: string; public_token: string };
/** What reached latchkey.fetch, recorded on the way through to the real instance. */
let seen: Array<{ request: Request; env: { clientIp?: string } | undefined }>;
let recording: Pick<Latchkey, 'fetch'>;

beforeEach(async () => {
  latchkey = createLatchkey({ storage: memoryStorage(), secret: SECRET });
  keys = await latchkey.apps.create({ name: 'next adapter test' });
  seen = [];
  recording = {
    fetch: (request, env) => {
      seen.push({ request: request.clone(), env });
      return latchkey.fetch(request, env);
    },
  };
});

afterEach(() => latchkey.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const json = { 'content-type': 'application/json' };

async function expectError(res: Response, status: number, errorType: string) {
  expect(res.status).toBe(status);
  const body = await res.json();
  expect(body).toMatchObject({ status_code: status, error_type: errorType });
  expect(body.request_id).toMatch(/^req_/);
  expect(typeof body.error_message).toBe('string');
}

describe('path stripping', () => {
  it('serves /v1 routes below the default /api base path', async () => {
    const { GET } = latchkeyHandlers(latchkey);
    const res = await GET(new Request(`${ORIGIN}/api/v1/health`));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });

  it.each([
    ['/auth/latchkey', '/auth/latchkey/v1/health'],
    ['auth/latchkey/', '/auth/latchkey/v1/health'],
    ['', '/v1/health'],
    ['/', '/v1/health'],
  ])('takes basePath %j and serves %s', async (basePath, path) => {
    const { GET } = latchkeyHandlers(latchkey, { basePath });
    const res = await GET(new Request(`${ORIGIN}${path}`));
    expect(res.status).toBe(200);
  });

  it('forwards the path below the base path and keeps the query string', async () => {
    const { GET } = latchkeyHandlers(recording, { basePath: '/auth' });
    await GET(
      new Request(`${ORIGIN}/auth/v1/auth/users/user_x?expand=wallets&a=1`, { headers: bearer('x') }),
    );
    const url = new URL(seen[0]!.request.url);
    expect(url.pathname).toBe('/v1/auth/users/user_x');
    expect(url.search).toBe('?expand=wallets&a=1');
  });

  it.each([
    '/other/v1/health',
    '/apis/v1/health', // shares a prefix with /api but is not below it
    '/v1/health', // a /v1 route, but not where the handlers are mounted
  ])('lets latchkey answer 404 for %s, outside the base path', async (path) => {
    const { GET } = latchkeyHandlers(latchkey);
    await expectError(await GET(new Request(`${ORIGIN}${path}`)), 404, 'route_not_found');
  });

  it('answers 404 in the documented shape for an unknown route below the base path', async () => {
    const { GET } = latchkeyHandlers(latchkey);
    await expectError(
      await GET(new Request(`${ORIGIN}/api/v1/no/such/route`, { headers: bearer(keys.secret_key) })),
      404,
      'route_not_found',
    );
  });
});

describe('method and body passing', () => {
  it('creates a user from a JSON body and reads it back', async () => {
    const { GET, POST } = latchkeyHandlers(latchkey);
    const created = await POST(
      new Request(`${ORIGIN}/api/v1/auth/users`, {
        method: 'POST',
        headers: { ...json, ...bearer(keys.secret_key) },
        body: JSON.stringify({ email: 'ada@example.com', name: { first_name: 'Ada' } }),
      }),
    );
    expect(created.status).toBe(200);
    const { user_id, user } = await created.json();
    expect(user.emails[0].email).toBe('ada@example.com');
    expect(user.name.first_name).toBe('Ada');

    const read = await GET(
      new Request(`${ORIGIN}/api/v1/auth/users/${user_id}`, { headers: bearer(keys.secret_key) }),
    );
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ user_id, emails: [{ email: 'ada@example.com' }] });
  });

  it('streams a body that arrives in chunks', async () => {
    const { POST } = latchkeyHandlers(latchkey);
    const encoder = new TextEncoder();
    const parts = ['{"email":', '"grace@', 'example.com"}'];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(encoder.encode(part));
        controller.close();
      },
    });
    const res = await POST(
      new Request(`${ORIGIN}/api/v1/auth/users`, {
        method: 'POST',
        headers: { ...json, ...bearer(keys.secret_key) },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(200);
    expect((await res.json()).user.emails[0].email).toBe('grace@example.com');
  });

  it('passes the body bytes unchanged, so a broken body is refused as invalid JSON', async () => {
    const { POST } = latchkeyHandlers(latchkey);
    const res = await POST(
      new Request(`${ORIGIN}/api/v1/auth/users`, {
        method: 'POST',
        headers: { ...json, ...bearer(keys.secret_key) },
        body: '{"email": ',
      }),
    );
    await expectError(res, 400, 'invalid_json');
  });

  it('passes the method: a DELETE on a POST-only route is 405', async () => {
    const { DELETE } = latchkeyHandlers(latchkey);
    const res = await DELETE(
      new Request(`${ORIGIN}/api/v1/auth/users`, { method: 'DELETE', headers: bearer(keys.secret_key) }),
    );
    expect(res.headers.get('allow')).toBe('POST');
    await expectError(res, 405, 'method_not_allowed');
  });

  it('exports a handler for every method the App Router routes', () => {
    const handlers = latchkeyHandlers(latchkey);
    expect(Object.keys(handlers).sort()).toEqual(['DELETE', 'GET', 'OPTIONS', 'PATCH', 'POST', 'PUT']);
  });
});

describe('header passing', () => {
  it('passes Authorization: none is 401, a public token is 403, the secret key is 200', async () => {
    const { POST } = latchkeyHandlers(latchkey);
    const create = (headers: Record<string, string>) =>
      POST(
        new Request(`${ORIGIN}/api/v1/auth/users`, {
          method: 'POST',
          headers: { ...json, ...headers },
          body: JSON.stringify({ email: 'lin@example.com' }),
        }),
      );
    await expectError(await create({}), 401, 'unauthorized');
    await expectError(await create(bearer(keys.public_token)), 403, 'secret_key_required');
    expect((await create(bearer(keys.secret_key))).status).toBe(200);
  });

  it('passes Content-Type: a text body is 415', async () => {
    const { POST } = latchkeyHandlers(latchkey);
    const res = await POST(
      new Request(`${ORIGIN}/api/v1/auth/users`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', ...bearer(keys.secret_key) },
        body: '{}',
      }),
    );
    await expectError(res, 415, 'unsupported_media_type');
  });

  it('passes every request header through', async () => {
    const { GET } = latchkeyHandlers(recording);
    await GET(
      new Request(`${ORIGIN}/api/v1/health`, { headers: { 'x-custom': 'one', 'user-agent': 'ua/1' } }),
    );
    expect(seen[0]!.request.headers.get('x-custom')).toBe('one');
    expect(seen[0]!.request.headers.get('user-agent')).toBe('ua/1');
  });
});

describe('client IP', () => {
  const ipFor = async (headers: Record<string, string>, options = {}) => {
    const { GET } = latchkeyHandlers(recording, options);
    await GET(new Request(`${ORIGIN}/api/v1/health`, { headers }));
    return seen.at(-1)!.env;
  };

  it('takes the hop the nearest proxy appended, not the first one a client can forge', async () => {
    expect(await ipFor({ 'x-forwarded-for': ' 6.6.6.6 , 203.0.113.7' })).toEqual({ clientIp: '203.0.113.7' });
    expect(
      await ipFor({ 'x-forwarded-for': '6.6.6.6, 203.0.113.7, 10.0.0.1' }, { trustedProxyHops: 2 }),
    ).toEqual({
      clientIp: '203.0.113.7',
    });
    expect(await ipFor({ 'x-forwarded-for': '203.0.113.7' }, { trustedProxyHops: 3 })).toEqual({
      clientIp: '203.0.113.7',
    });
  });

  it('falls back to x-real-ip', async () => {
    expect(await ipFor({ 'x-real-ip': '2001:db8::1' })).toEqual({ clientIp: '2001:db8::1' });
  });

  it('prefers x-forwarded-for over x-real-ip', async () => {
    expect(await ipFor({ 'x-forwarded-for': '198.51.100.2', 'x-real-ip': '10.0.0.9' })).toEqual({
      clientIp: '198.51.100.2',
    });
  });

  it('passes no client IP when neither header is present', async () => {
    expect(await ipFor({})).toEqual({});
  });

  it('uses a clientIp option instead of the headers when given', async () => {
    const env = await ipFor({ 'x-forwarded-for': '203.0.113.7' }, { clientIp: () => '192.0.2.44' });
    expect(env).toEqual({ clientIp: '192.0.2.44' });
  });
});

describe('latchkey source', () => {
  it('accepts an async function and calls it only when a request arrives', async () => {
    let calls = 0;
    const { GET } = latchkeyHandlers(async () => {
      calls++;
      return latchkey;
    });
    expect(calls).toBe(0);
    expect((await GET(new Request(`${ORIGIN}/api/v1/health`))).status).toBe(200);
    expect(calls).toBe(1);
  });
});
