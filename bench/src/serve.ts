import { configFromEnv } from '@latchkey/example-express-server/config';
import { startServer } from '@latchkey/example-express-server/server';
import { captureFile, captureSqlOnSignal } from './capture-sql.js';

/**
 * The example server as `npm start` runs it, plus one App for the benchmark whose send limits
 * are out of the way (the demo App's defaults would throttle the setup, not the endpoints).
 */
if (process.env.BENCH_CAPTURE_SQL) captureSqlOnSignal(captureFile(process.pid));
const server = await startServer({ ...configFromEnv(), port: 0 });
const high = { limit: 1_000_000 };
// BENCH_APP (the keys a previous start printed) reuses that App: the growth mode restarts the
// server over the same data.
const { app_id, secret_key, public_token } = process.env.BENCH_APP
  ? (JSON.parse(process.env.BENCH_APP) as { app_id: string; secret_key: string; public_token: string })
  : await server.latchkey.apps.create({
      name: 'bench',
      settings: {
        rate_limits: {
          per_app: high,
          per_destination: high,
          public_routes: { verify: high, send: high, compute: high },
        },
        webauthn: { allowed_domains: ['localhost'] },
        redirect_urls: {
          login: [`${server.url}/magic-link`],
          signup: [`${server.url}/magic-link`],
          default_login: `${server.url}/magic-link`,
          default_signup: `${server.url}/magic-link`,
        },
      },
    });
console.log(
  JSON.stringify({ url: server.url, storage: server.storageDescription, app_id, secret_key, public_token }),
);
process.on('SIGTERM', () => {
  server.close().then(() => process.exit(0));
});
