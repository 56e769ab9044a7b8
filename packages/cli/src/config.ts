import path from 'node:path';

/** Where the CLI finds Latchkey's database, from the flags and the environment. */
export interface CliConfig {
  /** Postgres when set (`--database-url`, then `DATABASE_URL`); embedded PGlite otherwise. */
  databaseUrl: string | undefined;
  /** Postgres schema of Latchkey's tables (`--schema`, then `LATCHKEY_DB_SCHEMA`); the search path when unset. */
  schema: string | undefined;
  /** `LATCHKEY_DATA_DIR` (default `./.latchkey`): PGlite lives in its `pglite` folder, beside a host's admin socket. */
  dataDir: string;
}

export function cliConfig(
  flags: { 'database-url'?: string; schema?: string },
  env: NodeJS.ProcessEnv,
  cwd: string,
): CliConfig {
  return {
    databaseUrl: flags['database-url'] || env.DATABASE_URL || undefined,
    schema: flags.schema || env.LATCHKEY_DB_SCHEMA || undefined,
    dataDir: path.resolve(cwd, env.LATCHKEY_DATA_DIR || '.latchkey'),
  };
}

export const pgliteDir = (config: Pick<CliConfig, 'dataDir'>) => path.join(config.dataDir, 'pglite');

/** The URL without its password, for messages. */
export const redactUrl = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@');

export function describeDatabase(config: CliConfig): string {
  if (!config.databaseUrl) return `embedded PGlite in ${pgliteDir(config)}`;
  const schema = config.schema ? `, schema ${config.schema}` : '';
  return `Postgres at ${redactUrl(config.databaseUrl)}${schema}`;
}
