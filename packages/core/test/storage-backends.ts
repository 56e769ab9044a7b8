import { randomBytes } from 'node:crypto';
import { kyselyStorage, pgliteStorage } from '@latchkey/kysely-postgres';
import { memoryStorage } from '@latchkey/memory';
import pg from 'pg';
import type { Storage } from '../src/index.js';

/** One storage a service test runs on: memory and PGlite always, Postgres with DATABASE_URL. */
export interface Backend {
  name: string;
  open(): Promise<{ storage: Storage; dispose(): Promise<void> }>;
}

export function storageBackends(): Backend[] {
  const backends: Backend[] = [
    {
      name: 'memory',
      async open() {
        const storage = memoryStorage();
        return { storage, dispose: () => storage.close() };
      },
    },
    {
      name: 'pglite',
      async open() {
        const storage = await pgliteStorage(undefined, { migrate: true });
        return { storage, dispose: () => storage.close() };
      },
    },
  ];
  const url = process.env.DATABASE_URL;
  if (url) {
    backends.push({
      name: 'postgres',
      async open() {
        // A pool of 10: requests run truly in parallel, only the storage keeps them apart.
        const pool = new pg.Pool({ connectionString: url, max: 10 });
        pool.on('error', () => {});
        const schema = `latchkey_svc_${randomBytes(6).toString('hex')}`;
        const storage = await kyselyStorage({ pool, schema, migrate: true });
        return {
          storage,
          async dispose() {
            await storage.close();
            await pool.query(`drop schema if exists "${schema}" cascade`);
            await pool.end();
          },
        };
      },
    });
  }
  return backends;
}
