import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, uniqueEmail } from './api.js';
import { type StorageTarget, storageTarget } from './database.js';
import {
  newDataDir,
  removeDataDirs,
  type SpawnedServer,
  spawnServer,
  stopAllServers,
} from './spawn-server.js';

afterAll(async () => {
  await stopAllServers();
  await removeDataDirs();
});

describe('a fresh data folder', () => {
  let server: SpawnedServer;
  let target: StorageTarget;

  beforeAll(async () => {
    target = storageTarget();
    server = await spawnServer(await newDataDir(), target.env);
  });
  afterAll(async () => {
    await server?.stop();
    await target?.dispose();
  });

  it('creates the demo App, prints its keys and answers health', async () => {
    expect(server.keys.app_id).toMatch(/^app_/);
    expect(server.banner).toContain(`Created the demo App ${server.keys.app_id}`);
    expect(server.banner).toContain(`secret key:   ${server.keys.secret_key}`);
    expect(server.banner).toContain(`public token: ${server.keys.public_token}`);
    const res = await call(server.url, 'GET', '/v1/health');
    expect(res.status).toBe(200);
    // The server listens for revoked sessions before it serves (jwt mode refuses them at once).
    expect(res.body).toEqual({ status: 'ok', session_revocations: 'live' });
  });

  it('answers an unknown user with 404 user_not_found in the documented shape', async () => {
    const res = await call(server.url, 'GET', '/v1/auth/users/user_01unknown0000000000000000', {
      key: server.keys.secret_key,
    });
    expectError(res, 404, 'user_not_found');
  });

  it('refuses the users route without a key (401) and with the public token (403)', async () => {
    const route = '/v1/auth/users/user_01unknown0000000000000000';
    expectError(await call(server.url, 'GET', route), 401, 'unauthorized');
    expectError(
      await call(server.url, 'GET', route, { key: server.keys.public_token }),
      403,
      'secret_key_required',
    );
    expectError(
      await call(server.url, 'POST', '/v1/auth/users', {
        key: server.keys.public_token,
        body: { email: uniqueEmail('public') },
      }),
      403,
      'secret_key_required',
    );
  });

  it('creates a user over HTTP and reads it back', async () => {
    const email = uniqueEmail('ada');
    const created = await call(server.url, 'POST', '/v1/auth/users', {
      key: server.keys.secret_key,
      body: { email, phone_number: '+14155550100', name: { first_name: 'Ada', last_name: 'Lovelace' } },
    });
    expect(created.status).toBe(200);
    const { user_id, email_id, phone_number_id } = created.body;
    expect(user_id).toMatch(/^user_/);

    const read = await call(server.url, 'GET', `/v1/auth/users/${user_id}`, { key: server.keys.secret_key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      user_id,
      status: 'active',
      name: { first_name: 'Ada', middle_name: '', last_name: 'Lovelace' },
      emails: [{ email_id, email, verified: false }],
      phone_numbers: [{ phone_number_id, phone_number: '+14155550100', verified: false }],
    });
  });

  it('prints a curl line that works through a shell', async () => {
    const line = /^ {2}(curl .*)$/m.exec(server.banner)?.[1];
    expect(line).toBeDefined();
    const { stdout } = await promisify(execFile)('sh', ['-c', line!]);
    const created = JSON.parse(stdout);
    expect(created.user_id).toMatch(/^user_/);
    expect(created.user.emails[0].email).toMatch(/^ada\.[0-9a-z]+@example\.com$/);
    const read = await call(server.url, 'GET', `/v1/auth/users/${created.user_id}`, {
      key: server.keys.secret_key,
    });
    expect(read.status).toBe(200);
  });

  it('finishes a request in flight on SIGTERM, then exits 0', async () => {
    const { hostname, port } = new URL(server.url);
    const email = uniqueEmail('inflight');
    const body = JSON.stringify({ email });
    const answer = new Promise<{ status: number | undefined; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: hostname,
          port,
          method: 'POST',
          path: '/v1/auth/users',
          headers: {
            authorization: `Bearer ${server.keys.secret_key}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode, text }));
        },
      );
      req.on('error', reject);
      // Half the body now, the rest after SIGTERM: the request is in flight when the signal lands.
      req.write(body.slice(0, 5));
      setTimeout(() => req.end(body.slice(5)), 700);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopped = server.stop();
    const res = await answer;
    const answeredAt = Date.now();
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).user.emails).toMatchObject([{ email }]);
    expect(await stopped).toEqual({ code: 0, signal: null });
    // Not held open by the answered request's keep-alive connection (keepAliveTimeout is 5 s).
    expect(Date.now() - answeredAt).toBeLessThan(3_000);
    expect(server.output()).toContain('SIGTERM: finishing in-flight requests');
    await expect(fetch(`${server.url}/v1/health`)).rejects.toThrow('fetch failed');
  });
});

describe('a restart on the same data folder', () => {
  let target: StorageTarget;
  beforeAll(() => {
    target = storageTarget();
  });
  afterAll(async () => {
    await stopAllServers();
    await target?.dispose();
  });

  it('keeps users and reuses the demo App with the same keys', async () => {
    const dataDir = await newDataDir();
    const first = await spawnServer(dataDir, target.env);
    const email = uniqueEmail('grace');
    const created = await call(first.url, 'POST', '/v1/auth/users', {
      key: first.keys.secret_key,
      body: { email, name: { first_name: 'Grace' } },
    });
    expect(created.status).toBe(200);
    expect(await first.stop()).toEqual({ code: 0, signal: null });

    const second = await spawnServer(dataDir, target.env);
    expect(second.keys).toEqual(first.keys);
    expect(second.banner).toContain(`Demo App ${first.keys.app_id}`);
    expect(second.banner).not.toContain('Created the demo App');

    const read = await call(second.url, 'GET', `/v1/auth/users/${created.body.user_id}`, {
      key: first.keys.secret_key,
    });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ name: { first_name: 'Grace' }, emails: [{ email }] });

    // The public token still belongs to the App: it finds the same user by email.
    const login = await call(second.url, 'POST', '/v1/auth/otps/email/login_or_create', {
      key: first.keys.public_token,
      body: { email },
    });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ user_id: created.body.user_id, user_created: false });
    expect(await second.stop()).toEqual({ code: 0, signal: null });
  });
});
