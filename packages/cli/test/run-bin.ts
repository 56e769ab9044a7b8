import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The published bin; in the repository it runs src/bin.ts under tsx. */
export const bin = path.join(packageDir, 'bin/latchkey.js');

/** Set (e.g. postgres://postgres@127.0.0.1:5432/test) to run every command on Postgres too. */
export const DATABASE_URL = process.env.DATABASE_URL || undefined;

/** What the CLI reads from its environment: never inherited from the shell running the tests. */
const CLI_VARIABLES = [
  'DATABASE_URL',
  'LATCHKEY_DB_SCHEMA',
  'LATCHKEY_DATA_DIR',
  'LATCHKEY_SECRET',
  'LATCHKEY_VAULT_KEY',
  'DYNO',
  'RENDER',
  'FLY_APP_NAME',
  'K_SERVICE',
  'RAILWAY_ENVIRONMENT',
  'WEBSITE_SITE_NAME',
  'KUBERNETES_SERVICE_HOST',
];

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `latchkey ARGS` in `cwd` with only `env` of the CLI's variables; `input` goes to its standard input. */
export function latchkey(
  args: string[],
  { cwd, env = {}, input }: { cwd: string; env?: Record<string, string | undefined>; input?: string },
): Promise<Run> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CLI_VARIABLES) delete childEnv[name];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) childEnv[name] = value;
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      // Each run compiles the CLI under tsx and may open PGlite: on a loaded machine well over a minute.
      { cwd, env: childEnv, timeout: 240_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(input ?? '');
  });
}

const folders: string[] = [];
export async function newFolder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'latchkey-cli-'));
  folders.push(dir);
  return dir;
}
export async function removeFolders() {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Where a test's database lives: PGlite in the folder, or a Postgres schema of its own. */
export interface Target {
  name: 'pglite' | 'postgres';
  /** Variables that point the CLI at this target's database. */
  env: Record<string, string>;
  /** Latchkey's tables in the target (none before a migration). */
  tables(cwd: string): Promise<string[]>;
  dispose(): Promise<void>;
}

async function withClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export function pgliteTarget(): Target {
  return {
    name: 'pglite',
    env: {},
    async tables(cwd) {
      const { PGlite } = await import('@electric-sql/pglite');
      const { existsSync } = await import('node:fs');
      const dir = path.join(cwd, '.latchkey/pglite');
      if (!existsSync(dir)) return [];
      const db = new PGlite(dir);
      try {
        const { rows } = await db.query<{ table_name: string }>(
          "select table_name from information_schema.tables where table_schema = 'public' order by 1",
        );
        return rows.map((r) => r.table_name);
      } finally {
        await db.close();
      }
    },
    dispose: async () => {},
  };
}

export function postgresTarget(): Target {
  const schema = `lk_cli_${randomBytes(6).toString('hex')}`;
  return {
    name: 'postgres',
    env: { DATABASE_URL: DATABASE_URL!, LATCHKEY_DB_SCHEMA: schema },
    tables: () =>
      withClient(async (c) =>
        (
          await c.query<{ table_name: string }>(
            'select table_name from information_schema.tables where table_schema = $1 order by 1',
            [schema],
          )
        ).rows.map((r) => r.table_name),
      ),
    dispose: () => withClient((c) => c.query(`drop schema if exists "${schema}" cascade`)).then(() => {}),
  };
}

export const targets = (): Target[] => (DATABASE_URL ? [pgliteTarget(), postgresTarget()] : [pgliteTarget()]);
