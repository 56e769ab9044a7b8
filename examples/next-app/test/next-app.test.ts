import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIsFresh, freePort, type NextServer, nextBuild, nextStart } from './next-server.js';

// The example app served by a real `next start`: route handlers, bundling and all.
let server: NextServer | undefined;
let dataDir: string;
let secretKey: string;

beforeAll(async () => {
  if (!buildIsFresh()) await nextBuild();
  dataDir = await mkdtemp(path.join(tmpdir(), 'latchkey-next-app-'));
  server = await nextStart(
    await freePort(),
    { LATCHKEY_DATA_DIR: dataDir, LATCHKEY_SECRET: randomBytes(32).toString('hex') },
    '/api/v1/health',
  );
  // Written by the serving process before its first response, so it is there by now.
  const keys = JSON.parse(await readFile(path.join(dataDir, 'demo-app.json'), 'utf8'));
  expect(keys.app_id).toMatch(/^app_/);
  secretKey = keys.secret_key;
}, 300_000);

afterAll(async () => {
  await server?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 30_000);

const api = (p: string, init: RequestInit = {}) => fetch(`${server!.url}/api${p}`, init);
const withKey = (headers: Record<string, string> = {}) => ({
  ...headers,
  authorization: `Bearer ${secretKey}`,
});

async function expectErrorBody(res: Response, status: number, errorType: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = await res.json();
  expect(Object.keys(body).sort()).toEqual(['error_message', 'error_type', 'request_id', 'status_code']);
  expect(body).toMatchObject({ status_code: status, error_type: errorType });
  expect(body.request_id).toBe(res.headers.get('x-request-id'));
  expect(body.error_message).not.toBe('');
}

describe('examples/next-app under next start', () => {
  it('answers health without a key', async () => {
    const res = await api('/v1/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('creates a user with the demo App secret key and reads it back', async () => {
    const email = `ada-${Date.now()}@example.com`;
    const created = await api('/v1/auth/users', {
      method: 'POST',
      headers: withKey({ 'content-type': 'application/json' }),
      body: JSON.stringify({ email, name: { first_name: 'Ada', last_name: 'Lovelace' } }),
    });
    expect(created.status).toBe(200);
    const { user_id, email_id, user } = await created.json();
    expect(user_id).toMatch(/^user_/);
    expect(user.emails).toEqual([{ email_id, email, verified: false }]);

    const read = await api(`/v1/auth/users/${user_id}`, { headers: withKey() });
    expect(read.status).toBe(200);
    const again = await read.json();
    expect(again).toMatchObject({ user_id, name: { first_name: 'Ada', last_name: 'Lovelace' } });
    expect(again.emails).toEqual([{ email_id, email, verified: false }]);
  });

  it('refuses a request without a key with 401', async () => {
    await expectErrorBody(await api('/v1/auth/users/user_anything'), 401, 'unauthorized');
  });

  it('answers 404 user_not_found in the documented error shape for an unknown user id', async () => {
    const res = await api('/v1/auth/users/user_doesnotexist000000000000', { headers: withKey() });
    await expectErrorBody(res, 404, 'user_not_found');
  });

  it('lets latchkey answer unknown routes below /api', async () => {
    await expectErrorBody(await api('/v1/no-such-route', { headers: withKey() }), 404, 'route_not_found');
  });

  it('serves the page that says how to call the API', async () => {
    const res = await fetch(`${server!.url}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('/api/v1/health');
  });
});
