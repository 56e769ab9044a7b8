import { afterAll, beforeAll } from 'vitest';
import { type StorageTarget, storageTarget } from './database.js';
import {
  newDataDir,
  removeDataDirs,
  type SpawnedServer,
  spawnServer,
  stopAllServers,
} from './spawn-server.js';

/**
 * One example server for the whole test file, on the storage the run targets (PGlite, or a
 * throwaway Postgres schema with DATABASE_URL) with `env` added, stopped and cleaned up after the
 * file.
 */
export function serverForFile(env: Record<string, string> = {}): {
  server(): SpawnedServer;
  target(): StorageTarget;
} {
  let server: SpawnedServer | undefined;
  let target: StorageTarget | undefined;
  beforeAll(async () => {
    target = storageTarget();
    server = await spawnServer(await newDataDir(), { ...target.env, ...env });
  });
  afterAll(async () => {
    await stopAllServers();
    await target?.dispose();
    await removeDataDirs();
  });
  return { server: () => server!, target: () => target! };
}
