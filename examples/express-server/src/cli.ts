import { parseArgs } from 'node:util';
import { createLatchkey } from '@latchkey/core';
import { createAppThroughServer, serverRunning } from './admin-socket.js';
import { configFromEnv } from './config.js';
import { loadOrCreateSecrets } from './secrets.js';
import { openStorage } from './storage.js';

const USAGE = `Usage:
  latchkey app create --name NAME [--json]   create an App and print its keys (shown once)
  latchkey migrate                           apply pending database migrations

Uses the same storage as the example server: DATABASE_URL when set, otherwise embedded PGlite
under LATCHKEY_DATA_DIR (default ./.latchkey).`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals.join(' ');
  if (values.help || command === '') {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const config = configFromEnv();

  if (command === 'migrate') {
    if (!config.databaseUrl && (await serverRunning(config.dataDir))) {
      console.error(
        'latchkey migrate: the server is running on this data folder and migrates at start-up already',
      );
      return 1;
    }
    const { storage, description } = await openStorage(config);
    await storage.close();
    console.log(`Migrations applied: ${description}`);
    return 0;
  }

  if (command === 'app create') {
    const name = values.name?.trim();
    if (!name) {
      console.error('latchkey app create: --name is required');
      return 2;
    }
    const keys =
      (!config.databaseUrl && (await createAppThroughServer(config.dataDir, { name }))) ||
      (await createDirectly(name));
    if (values.json) console.log(JSON.stringify(keys));
    else
      console.log(
        `Created App ${keys.app_id}\n  secret key:   ${keys.secret_key}\n  public token: ${keys.public_token}`,
      );
    return 0;
  }

  console.error(`latchkey: unknown command '${command}'\n\n${USAGE}`);
  return 2;

  async function createDirectly(name: string) {
    if (!config.databaseUrl && (await serverRunning(config.dataDir))) {
      throw new Error(
        `a server is running on ${config.dataDir} but did not answer on its admin socket; stop it first (embedded PGlite allows one process)`,
      );
    }
    const { secret } = await loadOrCreateSecrets(config.dataDir);
    const { storage } = await openStorage(config);
    try {
      const { app_id, secret_key, public_token } = await createLatchkey({ storage, secret }).apps.create({
        name,
      });
      return { app_id, secret_key, public_token };
    } finally {
      await storage.close();
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`latchkey: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
