import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { readOutbox } from '@latchkey/senders';
import { afterEach, describe, expect, it } from 'vitest';
import { call, expectError, uniqueEmail } from './api.js';
import { DATABASE_URL, type StorageTarget, storageTarget } from './database.js';
import { newDataDir, removeDataDirs, spawnServer, stopAllServers } from './spawn-server.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

// Only on real Postgres: PGlite is one process's alone, and cannot go away under a running server.
describe.skipIf(!DATABASE_URL)('on Postgres', () => {
  let target: StorageTarget | undefined;
  let proxy: TcpProxy | undefined;
  afterEach(async () => {
    await stopAllServers();
    await proxy?.cut();
    proxy = undefined;
    await target?.dispose();
    target = undefined;
    await removeDataDirs();
  });

  it('two server processes on one database never create a duplicate, nor answer 500', async () => {
    target = storageTarget();
    const dataDir = await newDataDir();
    const env = { ...target.env, LATCHKEY_SECRET: randomBytes(32).toString('base64url') };
    // One after the other: the second finds the first's demo App in the database and reuses it.
    const a = await spawnServer(dataDir, env);
    const b = await spawnServer(dataDir, env);
    expect(b.keys).toEqual(a.keys);
    const key = a.keys.secret_key;

    const email = uniqueEmail('race');
    const creates = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 ? b.url : a.url, 'POST', '/v1/auth/users', { key, body: { email } }),
      ),
    );
    expect(creates.map((r) => r.status).sort()).toEqual([200, ...Array(19).fill(409)]);
    for (const r of creates.filter((r) => r.status === 409)) expectError(r, 409, 'duplicate_email');
    const winner = creates.find((r) => r.status === 200)!.body.user_id as string;
    const read = await call(b.url, 'GET', `/v1/auth/users/${winner}`, { key });
    expect(read.body).toMatchObject({ emails: [{ email }] });

    // Under the default limit of 5 codes per destination.
    const loginEmail = uniqueEmail('race-login');
    const logins = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        call(i % 2 ? b.url : a.url, 'POST', '/v1/auth/otps/email/login_or_create', {
          key: a.keys.public_token,
          body: { email: loginEmail },
        }),
      ),
    );
    expect(logins.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(logins.map((r) => r.body.user_id)).size).toBe(1);
    expect(logins.filter((r) => r.body.user_created === true)).toHaveLength(1);
    expect(logins.filter((r) => r.body.user_created === false)).toHaveLength(3);
    const sent = (await readOutbox(path.join(dataDir, 'outbox.jsonl'))).filter((e) => e.to === loginEmail);
    expect(sent).toHaveLength(4);

    // Wallets: 20 concurrent creates of one (user, type) across both processes → one wallet.
    for (const wallet_type of ['solana', 'ethereum']) {
      const wallets = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(i % 2 ? b.url : a.url, 'POST', '/v1/wallets/create', {
            key,
            body: { wallet_type, user_id: winner },
          }),
        ),
      );
      expect(wallets.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(new Set(wallets.map((r) => r.body.id)).size).toBe(1);
    }
    const listed = await call(a.url, 'GET', `/v1/wallets/list?user_id=${winner}`, { key });
    expect(listed.body.wallets as unknown[]).toHaveLength(2);

    expect(await a.stop()).toEqual({ code: 0, signal: null });
    expect(await b.stop()).toEqual({ code: 0, signal: null });
  });

  it('answers 503 storage_unavailable while the database is unreachable, and recovers by itself', async () => {
    target = storageTarget();
    const real = new URL(DATABASE_URL!);
    proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 5432) });
    const viaProxy = new URL(DATABASE_URL!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const server = await spawnServer(await newDataDir(), { ...target.env, DATABASE_URL: viaProxy.href });
    const key = server.keys.secret_key;

    const before = await call(server.url, 'POST', '/v1/auth/users', {
      key,
      body: { email: uniqueEmail('before') },
    });
    expect(before.status).toBe(200);
    const userRoute = `/v1/auth/users/${before.body.user_id}`;

    await proxy.cut();
    const lostEmail = uniqueEmail('during');
    for (let i = 0; i < 3; i++) {
      for (const attempt of [
        () => call(server.url, 'POST', '/v1/auth/users', { key, body: { email: lostEmail } }),
        () => call(server.url, 'GET', userRoute, { key }),
      ]) {
        const started = Date.now();
        const res = await attempt();
        expect(Date.now() - started).toBeLessThan(6_000);
        expectError(res, 503, 'storage_unavailable');
      }
    }
    expect(server.running()).toBe(true);
    expect((await call(server.url, 'GET', '/v1/health')).status).toBe(200);

    await proxy.restore();
    const deadline = Date.now() + 10_000;
    let after = await call(server.url, 'GET', userRoute, { key });
    while (after.status !== 200 && Date.now() < deadline) {
      expect(after.status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 200));
      after = await call(server.url, 'GET', userRoute, { key });
    }
    expect(after.status).toBe(200);
    // The creates tried during the outage left nothing behind: the address is still free.
    const again = await call(server.url, 'POST', '/v1/auth/users', { key, body: { email: lostEmail } });
    expect(again.status).toBe(200);
    expect(server.running()).toBe(true);
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  });
});
