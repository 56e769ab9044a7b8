import { localKeyVault } from '@latchkey/core';
import { pendingMigrations } from '@latchkey/kysely-postgres';
import { serverRunning } from './admin-socket.js';
import { type CliConfig, describeDatabase, pgliteDir } from './config.js';
import { databaseExists, openDatabase } from './database.js';
import type { Output } from './output.js';
import { type Found, readSecrets } from './secrets.js';

export type Status = 'ok' | 'warn' | 'fail';

export interface Check {
  check: string;
  status: Status;
  message: string;
}

const MIN_SECRET_LENGTH = 32;

export function secretCheck(secret: Found | undefined): Check {
  const check = 'secret';
  if (!secret)
    return {
      check,
      status: 'fail',
      message: 'LATCHKEY_SECRET is not set: `latchkey init` writes one into .env',
    };
  if (secret.value.length < MIN_SECRET_LENGTH) {
    return {
      check,
      status: 'fail',
      message: `${secret.from} has ${secret.value.length} characters, fewer than ${MIN_SECRET_LENGTH}: createLatchkey refuses it`,
    };
  }
  return { check, status: 'ok', message: `${secret.from}: ${secret.value.length} characters` };
}

export function vaultKeyCheck(vaultKey: Found | undefined): Check {
  const check = 'vault key';
  if (!vaultKey) {
    return {
      check,
      status: 'warn',
      message:
        'LATCHKEY_VAULT_KEY is not set: wallet seeds and JWT signing keys are sealed with a key derived from LATCHKEY_SECRET (docs/key-vault.md)',
    };
  }
  try {
    // The vault's own check, so "valid" here means exactly what the server will accept.
    localKeyVault({ keys: { 1: vaultKey.value }, current: 1 });
  } catch {
    return { check, status: 'fail', message: `${vaultKey.from} is not 32 bytes in base64 or base64url` };
  }
  return { check, status: 'ok', message: `${vaultKey.from}: 32 bytes` };
}

/** The clock against the database server's, from a read whose round trip brackets it. */
export function clockCheck(skewMs: number): Check {
  const check = 'clock';
  const seconds = (Math.abs(skewMs) / 1000).toFixed(1);
  const side = skewMs > 0 ? 'behind' : 'ahead of';
  const message = `this machine's clock is ${seconds} s ${side} the database server's`;
  if (Math.abs(skewMs) <= 1_000)
    return { check, status: 'ok', message: `within 1 s of the database server's` };
  if (Math.abs(skewMs) <= 5_000) return { check, status: 'warn', message };
  return {
    check,
    status: 'fail',
    message: `${message}: passcode, TOTP and JWT expiry checks drift with it; synchronise both with NTP`,
  };
}

/** Hosting platforms that always put a proxy in front of the process, by a variable they set. */
const PROXY_PLATFORMS: Array<[variable: string, platform: string]> = [
  ['DYNO', 'Heroku'],
  ['RENDER', 'Render'],
  ['FLY_APP_NAME', 'Fly.io'],
  ['K_SERVICE', 'Cloud Run'],
  ['RAILWAY_ENVIRONMENT', 'Railway'],
  ['WEBSITE_SITE_NAME', 'Azure App Service'],
  ['KUBERNETES_SERVICE_HOST', 'Kubernetes'],
];

export function proxyCheck(env: NodeJS.ProcessEnv): Check {
  const check = 'proxy';
  const found = PROXY_PLATFORMS.find(([variable]) => env[variable]);
  if (found) {
    return {
      check,
      status: 'warn',
      message: `running on ${found[1]} (${found[0]} is set), behind its proxy: set Express's \`trust proxy\` (app.set('trust proxy', 1) for one hop), or every client shares the proxy's address in rate limits and device fingerprints`,
    };
  }
  return {
    check,
    status: 'ok',
    message:
      "no hosting proxy detected; behind a load balancer or reverse proxy, set Express's `trust proxy` to its hop count (docs/operations.md)",
  };
}

/** Database reachable, migrations current and the clock, on the configured database. */
export async function databaseChecks(config: CliConfig): Promise<Check[]> {
  const where = describeDatabase(config);
  if (!config.databaseUrl && (await serverRunning(config.dataDir))) {
    return [
      { check: 'database', status: 'ok', message: `${where}, open in the running server` },
      {
        check: 'migrations',
        status: 'warn',
        message:
          'not checked: embedded PGlite allows one process, and the server holds it (it migrates at start)',
      },
    ];
  }
  if (!databaseExists(config)) {
    return [
      {
        check: 'database',
        status: 'fail',
        message: `no database in ${pgliteDir(config)} yet: \`latchkey migrate\` creates it`,
      },
    ];
  }
  let db: Awaited<ReturnType<typeof openDatabase>>;
  try {
    db = await openDatabase(config);
  } catch (err) {
    return [{ check: 'database', status: 'fail', message: `cannot reach ${where}: ${errorText(err)}` }];
  }
  try {
    const checks: Check[] = [];
    const [version] = await db.query<{ server_version: string }>('show server_version');
    checks.push({
      check: 'database',
      status: 'ok',
      message: `${where}: reachable, PostgreSQL ${version?.server_version}`,
    });
    const pending = await pendingMigrations({
      ...db.source,
      ...(config.schema ? { schema: config.schema } : {}),
    });
    checks.push(
      pending.length === 0
        ? { check: 'migrations', status: 'ok', message: 'every migration is applied' }
        : {
            check: 'migrations',
            status: 'fail',
            message: `${pending.length} pending (${pending.map((p) => p.name).join(', ')}): run \`latchkey migrate\` (\`--dry-run\` shows the SQL)`,
          },
    );
    if (config.databaseUrl) {
      const before = Date.now();
      const [clock] = await db.query<{ ms: string }>(
        'select (extract(epoch from clock_timestamp()) * 1000)::float8::text as ms',
      );
      const after = Date.now();
      checks.push(clockCheck(Number(clock?.ms) - (before + after) / 2));
    } else {
      checks.push({
        check: 'clock',
        status: 'ok',
        message: "embedded PGlite shares this machine's clock: nothing to compare",
      });
    }
    return checks;
  } finally {
    await db.close();
  }
}

/** pg's errors for a refused connection to every address of a host are an AggregateError with no message. */
function errorText(err: unknown): string {
  if (err instanceof AggregateError && !err.message) return err.errors.map(errorText).join('; ');
  if (err instanceof Error) return err.message || String((err as NodeJS.ErrnoException).code ?? err.name);
  return String(err);
}

/** `latchkey doctor`: one line per check; exits 1 when any fails. */
export async function doctorCommand(
  config: CliConfig,
  env: NodeJS.ProcessEnv,
  options: { json: boolean },
  output: Output,
): Promise<number> {
  const { secret, vaultKey } = await readSecrets(env, config.dataDir);
  const checks = [
    ...(await databaseChecks(config)),
    secretCheck(secret),
    vaultKeyCheck(vaultKey),
    proxyCheck(env),
  ];
  if (options.json) output.out(JSON.stringify({ checks }));
  else
    for (const { check, status, message } of checks)
      output.out(`${status.padEnd(4)} ${check.padEnd(11)} ${message}`);
  return checks.some((c) => c.status === 'fail') ? 1 : 0;
}
