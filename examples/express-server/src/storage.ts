import path from 'node:path';
import type { Storage } from '@latchkey/core';
import { pgliteStorage, postgresStorage } from '@latchkey/kysely-postgres';
import type { ServerConfig } from './config.js';

/** Postgres when `DATABASE_URL` is set, otherwise PGlite persisted in the data folder; migrated either way. */
export async function openStorage(config: ServerConfig): Promise<{ storage: Storage; description: string }> {
  if (config.databaseUrl) {
    const storage = await postgresStorage(config.databaseUrl, {
      migrate: true,
      ...(config.databaseSchema ? { schema: config.databaseSchema } : {}),
    });
    return { storage, description: `Postgres at ${redact(config.databaseUrl)}` };
  }
  const dir = path.join(config.dataDir, 'pglite');
  const storage = await pgliteStorage(dir, { migrate: true });
  return { storage, description: `embedded PGlite in ${dir}` };
}

const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@');
