import path from 'node:path';
import { parseArgs } from 'node:util';
import { type AdminCall, adminErrorMessage } from './admin-operations.js';
import { serverRunning } from './admin-socket.js';
import { runAppCall } from './apps.js';
import { type CliConfig, cliConfig } from './config.js';
import { doctorCommand } from './doctor.js';
import { loadEnvFile } from './env-file.js';
import { initEnvFile } from './init.js';
import { migrateCommand } from './migrate.js';
import { type Output, processOutput } from './output.js';

export const USAGE = `Usage: latchkey <command> [options]

  init                                        write a new LATCHKEY_SECRET and LATCHKEY_VAULT_KEY into ./.env
  migrate [--dry-run]                         apply pending database migrations, or print their SQL
  doctor                                      check the database, migrations, secrets, clock and proxy
  app create --name NAME                      create an App and print its keys (shown once)
  app list                                    list the Apps
  app settings get --app APP_ID               print the App's settings as JSON
  app settings set --app APP_ID [JSON]        change settings by a JSON merge patch (argument or
                                              standard input); prints the new settings
  app rotate-secret --app APP_ID [--grace-seconds N]
                                              issue a new secret key (the old one works N more seconds)

Options:
  --database-url URL   Postgres (default DATABASE_URL); without one, embedded PGlite in
                       $LATCHKEY_DATA_DIR/pglite (default ./.latchkey/pglite)
  --schema NAME        Postgres schema of Latchkey's tables (default LATCHKEY_DB_SCHEMA, else the search path)
  --json               print JSON
  -h, --help           this text

Reads ./.env first (variables already set win). While a server runs on the PGlite folder and
offers its admin socket (serveAdminSocket), the app commands go through it.
Exit codes: 0 done, 1 failed (doctor: a check failed), 2 bad usage.`;

/** A mistake in how the command was called: printed with the usage, exit code 2. */
class UsageError extends Error {}

const OPTIONS = {
  name: { type: 'string' },
  app: { type: 'string' },
  'grace-seconds': { type: 'string' },
  'database-url': { type: 'string' },
  schema: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** Runs one `latchkey` command line; resolves with the exit code. Reads `.env` in `cwd` into `env`. */
export async function runCli(
  argv: string[],
  {
    env = process.env,
    cwd = process.cwd(),
    output = processOutput,
  }: { env?: NodeJS.ProcessEnv; cwd?: string; output?: Output } = {},
): Promise<number> {
  let positionals: string[];
  let values: Values;
  try {
    ({ positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS }));
  } catch (err) {
    output.err(`latchkey: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const words = positionals.slice(0, positionals[0] === 'app' ? (positionals[1] === 'settings' ? 3 : 2) : 1);
  const command = words.join(' ');
  const rest = positionals.slice(words.length);
  if (values.help || command === '') {
    (values.help ? output.out : output.err)(USAGE);
    return values.help ? 0 : 2;
  }
  try {
    loadEnvFile(path.join(cwd, '.env'), env);
    const config = cliConfig(values, env, cwd);
    return await dispatch(command, rest, values, config, env, cwd, output);
  } catch (err) {
    if (err instanceof UsageError) {
      output.err(`latchkey ${command}: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    output.err(`latchkey ${command}: ${adminErrorMessage(err)}`);
    return 1;
  }
}

async function dispatch(
  command: string,
  rest: string[],
  values: Values,
  config: CliConfig,
  env: NodeJS.ProcessEnv,
  cwd: string,
  output: Output,
): Promise<number> {
  if (rest.length > 0 && command !== 'app settings set')
    throw new UsageError(`unexpected argument '${rest[0]}'`);
  switch (command) {
    case 'init': {
      const file = path.join(cwd, '.env');
      const result = await initEnvFile(file);
      if (!result.ok) {
        output.err(
          `latchkey init: ${file} already sets ${result.present.join(' and ')}; not overwritten (a new secret invalidates every stored key, session and sealed wallet)`,
        );
        return 1;
      }
      output.out(
        `${result.created ? 'Wrote' : 'Appended'} LATCHKEY_SECRET and LATCHKEY_VAULT_KEY to ${file}. Keep the file out of version control, and back it up: the database is unreadable without it.`,
      );
      return 0;
    }
    case 'migrate':
      if (!config.databaseUrl && (await serverRunning(config.dataDir))) {
        output.err(
          `latchkey migrate: a server is running on ${config.dataDir} and holds its PGlite database (one process at a time); it migrates at start`,
        );
        return 1;
      }
      return migrateCommand(config, { dryRun: values['dry-run'], json: values.json }, output);
    case 'doctor':
      return doctorCommand(config, env, { json: values.json }, output);
    default: {
      const call = await adminCallFor(command, rest, values);
      const result = await runAppCall(config, env, call);
      output.out(format(call, result, values.json));
      return 0;
    }
  }
}

async function adminCallFor(command: string, rest: string[], values: Values): Promise<AdminCall> {
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
