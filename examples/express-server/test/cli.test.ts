import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, uniqueEmail } from './api.js';
import { DATABASE_URL, type StorageTarget, storageTarget } from './database.js';
import { runCli } from './run-cli.js';
import { newDataDir, removeDataDirs, spawnServer, stopAllServers } from './spawn-server.js';

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
