import { configFromEnv } from '@latchkey/example-express-server/config';
import { startServer } from '@latchkey/example-express-server/server';

/**
 * The example server as `npm start` runs it, plus one App for the benchmark whose send limits
 * are out of the way (the demo App's defaults would throttle the setup, not the endpoints).
 */
const server = await startServer({ ...configFromEnv(), port: 0 });
const { app_id, secret_key, public_token } = await server.latchkey.apps.create({
  name: 'bench',
  settings: { rate_limits: { per_app: { limit: 1_000_000 }, per_destination: { limit: 1_000_000 } } },
});
console.log(
  JSON.stringify({ url: server.url, storage: server.storageDescription, app_id, secret_key, public_token }),
);
process.on('SIGTERM', () => {
  server.close().then(() => process.exit(0));
});
