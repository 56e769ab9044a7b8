import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The Hono and Fastify rows' servers, each its own process: `<framework> bare` answers
 * `{"status":"ok"}` at `/bare` and loads no Latchkey (the framework's ceiling, as bare Express is
 * Express's); `<framework> host` is a host app with Latchkey embedded through `@latchkey/hono` or
 * `@latchkey/fastify`, `/jwt/me` and `/token/me` behind `requireSession`, answering the user id as
 * the Express host does. Each framework and Latchkey load only in the process that uses them.
 * Prints `{ url, … }` when ready, like the other bench servers.
 */
const [framework, kind] = process.argv.slice(2);
if ((framework !== 'hono' && framework !== 'fastify') || (kind !== 'bare' && kind !== 'host'))
  throw new Error('usage: framework-servers.ts hono|fastify bare|host');

const host =
  kind === 'host'
    ? await (await import('./host-session-app.js')).hostSessionApp(
        await mkdtemp(path.join(tmpdir(), `latchkey-bench-${framework}-`)),
      )
    : undefined;
const ready = (port: number) => {
  const credentials = host ? { session_jwt: host.session_jwt, session_token: host.session_token } : {};
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}`, ...credentials }));
};

let close: () => Promise<void>;
if (framework === 'hono') {
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const app = new Hono();
  app.get('/bare', (c) => c.json({ status: 'ok' }));
  // What any middleware costs on Hono, before Latchkey: one that only sets a variable.
  app.get(
    '/middleware',
    (c, next) => {
      c.set('auth' as never, { user_id: 'user_x' } as never);
      return next();
    },
    (c) => c.json({ user_id: (c.var as { auth?: { user_id: string } }).auth?.user_id }),
  );
  if (host) {
    const { requireSession } = await import('@latchkey/hono');
    const routes = new Hono<import('@latchkey/hono').LatchkeyEnv>();
    routes.get('/jwt/me', requireSession(host.latchkey, { app_id: host.appId, mode: 'jwt' }), (c) =>
      c.json({ user_id: c.var.auth?.user_id }),
    );
    routes.get('/token/me', requireSession(host.latchkey, { app_id: host.appId, mode: 'token' }), (c) =>
      c.json({ user_id: c.var.auth?.user_id }),
    );
    app.route('/', routes);
  }
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => ready(info.port));
  close = () => new Promise((done) => server.close(() => done()));
} else {
  const { default: fastify } = await import('fastify');
  const app = fastify();
  app.get('/bare', async () => ({ status: 'ok' }));
  // What any onRequest hook costs on Fastify, before Latchkey: one that only sets a property.
  app.get(
    '/middleware',
    {
      onRequest: (request, _reply, done) => {
        (request as unknown as { who: string }).who = 'user_x';
        done();
      },
    },
    async (request) => ({ user_id: (request as unknown as { who: string }).who }),
  );
  if (host) {
    const { latchkeyPlugin, requireSession } = await import('@latchkey/fastify');
    // The plugin declares `request.auth`; its `/v1` routes are not measured here.
    await app.register(latchkeyPlugin, { latchkey: host.latchkey, prefix: '/auth' });
    const who = async (request: import('fastify').FastifyRequest) => ({ user_id: request.auth?.user_id });
    app.get(
      '/jwt/me',
      { onRequest: requireSession(host.latchkey, { app_id: host.appId, mode: 'jwt' }) },
      who,
    );
    app.get(
      '/token/me',
      { onRequest: requireSession(host.latchkey, { app_id: host.appId, mode: 'token' }) },
      who,
    );
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  ready((app.server.address() as AddressInfo).port);
  close = () => app.close();
}

process.on('SIGTERM', () => {
  close()
    .then(() => host?.close())
    .finally(() => process.exit(0));
});
