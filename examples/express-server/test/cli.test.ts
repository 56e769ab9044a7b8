import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, uniqueEmail } from './api.js';
import { DATABASE_URL, type StorageTarget, storageTarget } from './database.js';
import { runCli } from './run-cli.js';
import { newDataDir, removeDataDirs, spawnServer, stopAllServers } from './spawn-server.js';

// Every CLI call is a process of its own (@latchkey/cli's bin, under tsx here): seconds each when busy.
vi.setConfig({ testTimeout: 300_000 });

let target: StorageTarget;
beforeAll(() => {
  target = storageTarget();
});
afterAll(async () => {
  await stopAllServers();
  await target?.dispose();
  await removeDataDirs();
});

/** Runs `latchkey app create --name NAME --json` and checks it printed exactly the three keys. */
async function createApp(name: string, env: Record<string, string | undefined>) {
  const result = await runCli(['app', 'create', '--name', name, '--json'], env);
  expect(result, result.stderr).toMatchObject({ code: 0 });
  const keys = JSON.parse(result.stdout);
  expect(Object.keys(keys).sort()).toEqual(['app_id', 'public_token', 'secret_key']);
  expect(keys.app_id).toMatch(/^app_/);
  expect(keys.secret_key).toMatch(/^sk_/);
  expect(keys.public_token).toMatch(/^pk_/);
  return keys as { app_id: string; secret_key: string; public_token: string };
}

/** The App's secret key creates a user the demo App cannot see: the key belongs to that App. */
async function expectWorkingSecretKey(url: string, secretKey: string, demoSecretKey: string) {
  const created = await call(url, 'POST', '/v1/auth/users', {
    key: secretKey,
    body: { email: uniqueEmail('cli') },
  });
  expect(created.status).toBe(200);
  const route = `/v1/auth/users/${created.body.user_id}`;
  expect((await call(url, 'GET', route, { key: secretKey })).status).toBe(200);
  expect((await call(url, 'GET', route, { key: demoSecretKey })).status).toBe(404);
}

describe('latchkey app create', () => {
  it('creates Apps through the running server, then directly once it has stopped', async () => {
    const dataDir = await newDataDir();
    const env = { LATCHKEY_DATA_DIR: dataDir, ...target.env };
    const server = await spawnServer(dataDir, target.env);
    // On PGlite the data folder is the server's alone: the CLI has to ask it over the socket.
    if (!DATABASE_URL) expect(existsSync(path.join(dataDir, 'admin.sock'))).toBe(true);

    const whileRunning = await createApp('While running', env);
    expect(whileRunning.app_id).not.toBe(server.keys.app_id);
    await expectWorkingSecretKey(server.url, whileRunning.secret_key, server.keys.secret_key);
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    expect(existsSync(path.join(dataDir, 'admin.sock'))).toBe(false);

    const whileStopped = await createApp('While stopped', env);
    expect(new Set([server.keys.app_id, whileRunning.app_id, whileStopped.app_id]).size).toBe(3);

    const again = await spawnServer(dataDir, target.env);
    expect(again.keys).toEqual(server.keys);
    await expectWorkingSecretKey(again.url, whileStopped.secret_key, server.keys.secret_key);
    await expectWorkingSecretKey(again.url, whileRunning.secret_key, server.keys.secret_key);
    expect(
      (await call(again.url, 'GET', '/v1/auth/sessions/jwks', { key: whileStopped.public_token })).status,
    ).toBe(200);
    expect(await again.stop()).toEqual({ code: 0, signal: null });
  });
});

describe('latchkey app settings, list and rotate-secret', () => {
  it('changes an App made by the CLI so it can send magic links, through the server and directly', async () => {
    const dataDir = await newDataDir();
    const env = { LATCHKEY_DATA_DIR: dataDir, ...target.env };
    const server = await spawnServer(dataDir, target.env);
    const app = await createApp('Settings by CLI', env);
    const send = (url: string) =>
      call(server.url, 'POST', '/v1/auth/magic_links/email/login_or_create', {
        key: app.public_token,
        body: { email: uniqueEmail('cli-ml'), login_redirect_url: url, signup_redirect_url: url },
      });
    // A new App allows no redirect URL yet: the reason this command exists.
    expect((await send('https://a.example/cb')).body.error_type).toBe('redirect_url_not_allowed');

    const patch = JSON.stringify({
      redirect_urls: { login: ['https://a.example/cb'], signup: ['https://a.example/cb'] },
    });
    const set = await runCli(['app', 'settings', 'set', '--app', app.app_id, patch], env);
    expect(set, set.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(set.stdout).redirect_urls.login).toEqual(['https://a.example/cb']);
    // On Postgres the CLI is another process: the server sees the change once its App cache
    // expires. Polled slowly, so the per-IP limit on sends is not what answers.
    await expect
      .poll(async () => (await send('https://a.example/cb')).status, { timeout: 12_000, interval: 1000 })
      .toBe(200);
    expect((await send('https://b.example/cb')).body.error_type).toBe('redirect_url_not_allowed');

    const bad = await runCli(['app', 'settings', 'set', '--app', app.app_id, '{"sesions":{}}'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("Unknown setting 'sesions'");
    // The same write rules as the HTTP API (issue 31): an unsafe redirect is refused, naming it.
    const unsafe = await runCli(
      ['app', 'settings', 'set', '--app', app.app_id, '{"redirect_urls":{"login":["javascript:alert(1)"]}}'],
      env,
    );
    expect(unsafe.code).toBe(1);
    expect(unsafe.stderr).toContain("Invalid field 'redirect_urls.login.0'");
    const notJson = await runCli(['app', 'settings', 'set', '--app', app.app_id, '{'], env);
    expect(notJson.code).toBe(2);

    const listed = await runCli(['app', 'list', '--json'], env);
    expect(JSON.parse(listed.stdout).map((a: { app_id: string }) => a.app_id)).toContain(app.app_id);

    const rotated = await runCli(['app', 'rotate-secret', '--app', app.app_id, '--json'], env);
    expect(rotated, rotated.stderr).toMatchObject({ code: 0 });
    const { secret_key } = JSON.parse(rotated.stdout);
    expect(secret_key).toMatch(/^sk_/);
    await expectWorkingSecretKey(server.url, secret_key, server.keys.secret_key);
    await expect
      .poll(
        async () => (await call(server.url, 'GET', '/v1/auth/users/user_x', { key: app.secret_key })).status,
        {
          timeout: 10_000,
        },
      )
      .toBe(401);

    expect(await server.stop()).toEqual({ code: 0, signal: null });
    const got = await runCli(['app', 'settings', 'get', '--app', app.app_id], env);
    expect(got, got.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(got.stdout).redirect_urls.signup).toEqual(['https://a.example/cb']);
    const proto = await runCli(
      ['app', 'settings', 'set', '--app', app.app_id, '{"rate_limits":{"routes":{"__proto__":{"limit":1}}}}'],
      env,
    );
    expect(proto.code).toBe(1);
    expect(proto.stderr).toContain("Invalid field 'rate_limits.routes.__proto__'");
    const missing = await runCli(['app', 'settings', 'get', '--app', 'app_nope'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('app_not_found');
  });
});
