import { parseArgs } from 'node:util';
import { createLatchkey } from '@latchkey/core';
import { type AdminCall, adminErrorMessage, runAdminCall } from './admin-operations.js';
import { adminCallThroughServer, serverRunning } from './admin-socket.js';
import { configFromEnv } from './config.js';
import { loadOrCreateSecrets } from './secrets.js';
import { openStorage } from './storage.js';

const USAGE = `Usage:
  latchkey app create --name NAME [--json]        create an App and print its keys (shown once)
  latchkey app list [--json]                      list the Apps
  latchkey app settings get --app APP_ID          print the App's settings as JSON
  latchkey app settings set --app APP_ID [JSON]   change settings by a JSON merge patch (argument
                                                  or standard input); prints the new settings
  latchkey app rotate-secret --app APP_ID [--grace-seconds N] [--json]
                                                  issue a new secret key (the old one works N more seconds)
  latchkey migrate                                apply pending database migrations

Uses the same storage as the example server: DATABASE_URL when set, otherwise embedded PGlite
under LATCHKEY_DATA_DIR (default ./.latchkey). While the server runs on PGlite, the commands go
through it.`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      app: { type: 'string' },
      'grace-seconds': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals.slice(0, positionals[1] === 'settings' ? 3 : 2).join(' ');
  const rest = positionals.slice(command.split(' ').length);
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

  let call: AdminCall;
  try {
    call = await adminCallFor(command, rest, values);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`latchkey ${command}: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  let result: unknown;
  try {
    result = await run(call);
  } catch (err) {
    console.error(`latchkey ${command}: ${adminErrorMessage(err)}`);
    return 1;
  }
  console.log(format(call, result, values.json));
  return 0;

  async function run(c: AdminCall): Promise<unknown> {
    const viaServer = config.databaseUrl ? undefined : await adminCallThroughServer(config.dataDir, c);
    if (viaServer) return viaServer.result;
    if (!config.databaseUrl && (await serverRunning(config.dataDir))) {
      throw new Error(
        `a server is running on ${config.dataDir} but did not answer on its admin socket; stop it first (embedded PGlite allows one process)`,
      );
    }
    const { secret } = await loadOrCreateSecrets(config.dataDir);
    const { storage } = await openStorage(config);
    try {
      return await runAdminCall(createLatchkey({ storage, secret }), c);
    } finally {
      await storage.close();
    }
  }
}

async function adminCallFor(
  command: string,
  rest: string[],
  values: { name?: string; app?: string; 'grace-seconds'?: string },
): Promise<AdminCall> {
  const appId = () => {
    if (!values.app) throw new UsageError('--app is required');
    return values.app;
  };
  switch (command) {
    case 'app create': {
      const name = values.name?.trim();
      if (!name) throw new UsageError('--name is required');
      return { op: 'app.create', name };
    }
    case 'app list':
      return { op: 'app.list' };
    case 'app settings get':
      return { op: 'app.settings.get', app_id: appId() };
    case 'app settings set': {
      const app_id = appId();
      const text = rest.length > 0 ? rest.join(' ') : await readStdin();
      try {
        return { op: 'app.settings.set', app_id, patch: JSON.parse(text) };
      } catch {
        throw new UsageError('the settings patch is not valid JSON');
      }
    }
    case 'app rotate-secret': {
      const grace = values['grace-seconds'];
      if (grace !== undefined && !/^\d{1,9}$/.test(grace))
        throw new UsageError('--grace-seconds takes a whole number of seconds');
      return { op: 'app.rotate_secret', app_id: appId(), grace_seconds: grace ? Number(grace) : undefined };
    }
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

function format(call: AdminCall, result: unknown, json: boolean): string {
  if (json || call.op === 'app.settings.get' || call.op === 'app.settings.set')
    return JSON.stringify(result, null, json ? undefined : 2);
  if (call.op === 'app.create') {
    const keys = result as { app_id: string; secret_key: string; public_token: string };
    return `Created App ${keys.app_id}\n  secret key:   ${keys.secret_key}\n  public token: ${keys.public_token}`;
  }
  if (call.op === 'app.rotate_secret') {
    const keys = result as { app_id: string; secret_key: string };
    return `New secret key for ${keys.app_id} (shown once): ${keys.secret_key}`;
  }
  const apps = result as Array<{ app_id: string; name: string }>;
  return apps.map((a) => `${a.app_id}  ${a.name}`).join('\n');
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    throw new UsageError('give the settings patch as an argument or on standard input');
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) text += chunk;
  return text;
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
