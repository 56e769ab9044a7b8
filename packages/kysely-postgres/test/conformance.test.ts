import { runStorageConformance } from '@latchkey/storage-conformance';
import { afterAll, describe } from 'vitest';
import { pgliteStorage } from '../src/index.js';
import { DATABASE_URL, type Harness, postgresTarget } from './targets.js';

runStorageConformance({ name: 'pglite', create: () => pgliteStorage(undefined, { migrate: true }) });

describe.skipIf(!DATABASE_URL)('postgres', () => {
  let harness: Harness | undefined;
  afterAll(async () => {
    await harness?.dispose();
  });
  runStorageConformance({
    name: 'postgres',
    // A pool of 10: the suite's concurrent inserts really race on separate connections.
    create: async () => {
      harness = await postgresTarget.open();
      // The suite closes the Storage; dispose() closes it again (a no-op) and drops the schema.
      return harness.storage;
    },
    parallelism: 10,
  });
});
