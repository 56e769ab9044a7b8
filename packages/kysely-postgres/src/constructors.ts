import { mkdir } from 'node:fs/promises';
import type { Storage } from '@latchkey/core';
import type pg from 'pg';
import { createPool } from './guarded-pool.js';
import { type StorageSetup, storageOn } from './kysely-storage.js';
import { openDatabase } from './open-database.js';

export interface PostgresStorageOptions extends StorageSetup {
  /** Extra pg Pool settings (max, idleTimeoutMillis, ssl, ...); connectionTimeoutMillis defaults to 5 s. */
  pool?: Omit<pg.PoolConfig, 'connectionString'>;
}

/** Storage on real Postgres through a pg Pool it creates, and ends on `close()`. */
export async function postgresStorage(
  connectionString: string,
  options: PostgresStorageOptions = {},
): Promise<Storage> {
  const pool = await createPool({ ...options.pool, connectionString });
  return storageOn(openDatabase({ pool }, true), options);
}

/**
 * Storage on embedded PGlite, persisted in `dataDir` (a folder, created with its parents when
 * missing), or in memory when it is undefined. The PGlite instance is created here and closed on
 * `close()`.
 */
export async function pgliteStorage(
  dataDir: string | undefined,
  options: StorageSetup = {},
): Promise<Storage> {
  // An optional peer, like pg: loaded only by the host that asks for PGlite.
  const { PGlite } = await import('@electric-sql/pglite').catch((err: unknown) => {
    throw new Error(
      'pgliteStorage needs the package @electric-sql/pglite: npm install @electric-sql/pglite',
      {
        cause: err,
      },
    );
  });
  // PGlite creates the data folder itself but not its parents: './.latchkey/pglite' in a fresh
  // project failed with ENOENT. Scheme-prefixed locations (memory://, idb://) are PGlite's own.
  if (dataDir !== undefined && !/^[a-z]+:\/\//i.test(dataDir)) await mkdir(dataDir, { recursive: true });
  const pglite = new PGlite(dataDir);
  try {
    await pglite.waitReady;
  } catch (err) {
    await pglite.close().catch(() => {});
    throw err;
  }
  return storageOn(openDatabase({ pglite }, true), options);
}
