import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../src/config.js';
import { call, expectError } from './api.js';
import {
  newDataDir,
  removeDataDirs,
  type SpawnedServer,
  spawnServer,
  stopAllServers,
} from './spawn-server.js';

describe('LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_TARGETS', () => {
  it('is off unless it is 1, and stops the server when it is neither 1 nor 0', () => {
    expect(configFromEnv({}).webhooksAllowPrivateTargets).toBe(false);
    expect(configFromEnv({ LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '0' }).webhooksAllowPrivateTargets).toBe(
      false,
    );
    expect(configFromEnv({ LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1' }).webhooksAllowPrivateTargets).toBe(
      true,
    );
    for (const value of ['true', 'yes', ' 1'])
      expect(() => configFromEnv({ LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_TARGETS: value })).toThrow(
        /LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_TARGETS must be 1 or 0/,
      );
  });

  describe('on a running server', () => {
    let strict: SpawnedServer;
    let permissive: SpawnedServer;
    let receiver: Server;
    let hookUrl: string;
    const received: string[] = [];

    beforeAll(async () => {
      receiver = createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c));
        req.on('end', () => {
          received.push(body);
          res.end();
        });
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      [strict, permissive] = await Promise.all([
        newDataDir().then((dir) => spawnServer(dir)),
        newDataDir().then((dir) => spawnServer(dir, { LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1' })),
      ]);
    }, 120_000);
    afterAll(async () => {
      await stopAllServers();
      await removeDataDirs();
      await new Promise<void>((r) => receiver?.close(() => r()));
    });

    const register = (server: SpawnedServer) =>
      call(server.url, 'POST', '/v1/webhooks/endpoints', {
        key: server.keys.secret_key,
        body: { url: hookUrl, event_types: ['user.created'] },
      });

    it('refuses a loopback endpoint by default', async () => {
      expectError(await register(strict), 400, 'webhook_url_not_allowed');
    });

    it('with it set to 1, takes the endpoint and delivers to it', async () => {
      expect((await register(permissive)).status).toBe(200);
      const user = await call(permissive.url, 'POST', '/v1/auth/users', {
        key: permissive.keys.secret_key,
        body: { email: 'hooked@example.com' },
      });
      expect(user.status).toBe(200);
      await expect
        .poll(() => received.map((b) => JSON.parse(b).data.user_id), { timeout: 15_000 })
        .toContain(user.body.user_id);
    });
  });
});
