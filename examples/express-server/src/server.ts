import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { serveAdminSocket } from '@latchkey/cli';
import {
  type AppKeys,
  createLatchkey,
  type Latchkey,
  localKeyVault,
  storageRateLimiter,
  systemClock,
} from '@latchkey/core';
import { latchkeyErrorHandler, latchkeyRequestGuard, latchkeyRouter } from '@latchkey/express';
import { redisRateLimiter } from '@latchkey/redis';
import { outboxSender } from '@latchkey/senders';
import express from 'express';
import { Redis } from 'ioredis';
import { accountRoutes } from './account-routes.js';
import { clientBundle } from './client-bundle.js';
import type { ServerConfig } from './config.js';
import { configureDemoApp, loadOrCreateDemoApp } from './demo-app.js';
import { demoRateLimit } from './demo-rate-limit.js';
import { oauthPages } from './oauth-page.js';
import { demoPages } from './pages.js';
import { passkeysPage } from './passkeys-page.js';
import { loadOrCreateSecrets } from './secrets.js';
import { sessionsPage } from './sessions-page.js';
import { ssoPage } from './sso-page.js';
import { openStorage } from './storage.js';

export interface RunningServer {
  url: string;
  latchkey: Latchkey;
  demo: { keys: AppKeys; created: boolean };
  storageDescription: string;
  /** Stops accepting connections, lets in-flight requests finish, then closes the storage. */
  close(): Promise<void>;
}

export const outboxPath = (config: Pick<ServerConfig, 'dataDir'>) =>
  path.join(config.dataDir, 'outbox.jsonl');

/** Builds Latchkey from the config and serves it at the root of an Express app. */
export async function startServer(config: ServerConfig): Promise<RunningServer> {
  // Bound before Latchkey is built: the OAuth callback URL, which Latchkey is given and providers
  // are told, holds the port (PORT=0 picks one). No handler answers until the app is ready below,
  // and nobody knows the port before the banner.
  const server = await listen(config);
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  try {
    return await serve(server, url, config);
  } catch (err) {
    await new Promise((resolve) => server.close(resolve));
    throw err;
  }
}

async function serve(server: Server, url: string, config: ServerConfig): Promise<RunningServer> {
  const { secret, vault_key } = await loadOrCreateSecrets(config.dataDir);
  const { storage, description } = await openStorage(config);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  // One limiter for Latchkey's routes and the demo's own.
  const rateLimiter = redis ? redisRateLimiter(redis) : storageRateLimiter(storage.rateLimits, systemClock);
  const latchkey = createLatchkey({
    rateLimiter,
    storage,
    secret,
    keyVault: localKeyVault({ keys: { 1: vault_key }, current: 1 }),
    // Development delivery: every passcode and link lands in this file instead of a phone or inbox.
    sender: outboxSender({ path: outboxPath(config) }),
    chains: config.chains,
    // Webhooks reach only public addresses (each name resolved once, and connected to as checked)
    // unless LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_TARGETS=1 lets a receiver on this machine have them.
    webhooks: { allowPrivateTargets: config.webhooksAllowPrivateTargets },
    // Providers send the browser back here, whichever App and provider: the one URL to register
    // with each. http providers only on loopback or private addresses, and only when
    // LATCHKEY_OAUTH_ALLOW_INSECURE_ISSUERS=1.
    oauth: {
      callbackUrl: `${url}/v1/auth/oauth/callback`,
      allowInsecureIssuers: config.oauthAllowInsecureIssuers,
    },
    // Organizations' identity providers send the browser back here (docs/organizations.md).
    sso: { callbackUrl: `${url}/v1/auth/sso/callback` },
  });
  // Listening for revoked sessions before serving, so the first jwt-mode checks need no storage
  // read; /v1/health reports the channel's state (`live`, or `lost` during a database outage).
  await latchkey.sessions.watchRevocations();
  const demo = await loadOrCreateDemoApp(latchkey, config.dataDir);

  const app = express();
  app.disable('x-powered-by');
  // Before the demo's layers, so the API's requests pass none of them; the router hands every
  // path outside `/v1` on. It guards the requests it serves itself; the guard after it is for
  // the demo's pages.
  app.use(latchkeyRouter(latchkey));
  app.use(latchkeyRequestGuard());
  app.use(demoRateLimit(rateLimiter));
  app.use(await clientBundle());
  app.use(demoPages(demo.keys));
  app.use(passkeysPage(demo.keys));
  app.use(sessionsPage(demo.keys));
  app.use(oauthPages(latchkey, demo.keys));
  app.use(ssoPage(demo.keys));
  app.use(accountRoutes(latchkey, demo.keys));
  // What no route took is answered by Latchkey's own 404, like every other answer here: JSON.
  app.use(latchkeyRouter(latchkey, { fallthrough: false }));
  // Last: whatever went wrong on the way (a rate limit, a missing file, a bug) is answered in
  // the documented JSON error shape, never Express's HTML page with a stack trace.
  app.use(latchkeyErrorHandler({ all: true }));

  server.on('request', app);
  let closing: Promise<void> | undefined;
  const admin = config.databaseUrl ? undefined : await serveAdminSocket(latchkey, config.dataDir);
  await configureDemoApp(latchkey, demo.keys.app_id, url);
  // Every server process sends webhooks; deliveries are leased, so they never send one twice.
  const stopDelivery = latchkey.webhooks.startDelivery({ intervalMs: 1000 });
  return {
    url,
    latchkey,
    demo,
    storageDescription: redis ? `${description}, rate limits in Redis` : description,
    close: () => {
      closing ??= (async () => {
        // A request still in flight when close() starts leaves its keep-alive connection open once
        // it is answered: swept while closing, instead of waiting out keepAliveTimeout (5 s). A
        // sweep rather than a listener on every response, which each request would pay for.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        clearInterval(sweep);
        await new Promise<void>((resolve) => (admin ? admin.close(() => resolve()) : resolve()));
        await stopDelivery();
        await latchkey.close();
        await redis?.quit().catch(() => redis.disconnect());
      })();
      return closing;
    },
  };
}

/**
 * The shared rate limiter's connection, ready before the server listens. A call made while
 * Redis is away later fails at once (503) rather than waiting in a queue; the client reconnects
 * by itself.
 */
async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
  let healthy = true;
  redis.on('ready', () => {
    healthy = true;
  });
  redis.on('error', (err: Error) => {
    if (healthy) console.error(`redis: ${err.message} (reconnecting)`);
    healthy = false;
  });
  await redis.connect();
  return redis;
}

function listen(config: ServerConfig): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
