import path from 'node:path';

/** Everything the example server reads from its environment, with the defaults of a new checkout. */
export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Real Postgres when set; embedded PGlite under `dataDir` otherwise. */
  databaseUrl: string | undefined;
  /** Postgres schema for Latchkey's tables (default `public`), to share a database with other apps. */
  databaseSchema: string | undefined;
  /** Redis for the rate limits shared by every node (`LATCHKEY_REDIS_URL`); the database when unset. */
  redisUrl: string | undefined;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = Number(env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got ${env.PORT}`);
  return {
    port,
    host: env.HOST ?? '127.0.0.1',
    // `npm start` at the root runs this in the workspace folder; INIT_CWD is where the user typed it.
    dataDir: path.resolve(env.INIT_CWD ?? process.cwd(), env.LATCHKEY_DATA_DIR ?? '.latchkey'),
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSchema: env.LATCHKEY_DB_SCHEMA || undefined,
    redisUrl: env.LATCHKEY_REDIS_URL || undefined,
  };
}
