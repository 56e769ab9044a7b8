import { configFromEnv } from './config.js';
import { startServer } from './server.js';

const config = configFromEnv();
const server = await startServer(config);
const { keys, created } = server.demo;

console.log(`Latchkey example server on ${server.url} (${server.storageDescription})
${created ? 'Created the demo App' : 'Demo App'} ${keys.app_id}; keys in ${config.dataDir}/demo-app.json
  secret key:   ${keys.secret_key}
  public token: ${keys.public_token}
Try:
  curl -s -X POST ${server.url}/v1/auth/users -H 'Authorization: Bearer ${keys.secret_key}' -H 'Content-Type: application/json' -d '{"email":"ada.${Date.now().toString(36)}@example.com"}'
`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`${signal}: finishing in-flight requests, then stopping`);
    server.close().then(
      () => process.exit(0),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}
