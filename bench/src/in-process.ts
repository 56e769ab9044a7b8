import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Storage } from '@latchkey/core';
import { configFromEnv } from '@latchkey/example-express-server/config';
import { openStorage } from '@latchkey/example-express-server/storage';

/** What one in-process row measured: this process's CPU (all its threads) per call, not just wall time. */
export interface InProcessRate {
  calls_per_second: number;
  cpu_us_per_call: number;
  errors: number;
}

/**
 * Runs `op(0 … amount−1)` with `concurrency` calls in flight and measures them. A failed call
 * counts as an error (the first is printed) and does not stop the row.
 */
export async function inProcessRate(
  name: string,
  { amount, concurrency }: { amount: number; concurrency: number },
  op: (i: number) => Promise<unknown>,
): Promise<InProcessRate> {
  let next = 0;
  let errors = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const worker = async () => {
    while (next < amount) {
      const i = next++;
      try {
        await op(i);
      } catch (err) {
        if (errors++ === 0) console.error(`${name}:`, err);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    calls_per_second: Math.round(amount / elapsed),
    cpu_us_per_call: Math.round((cpu.user + cpu.system) / amount),
    errors,
  };
}

/**
 * `use` on the storage the example server would open (`DATABASE_URL`, else PGlite in a temporary
 * directory, removed after).
 */
export async function withExampleStorage<T>(
  use: (storage: Storage, description: string) => Promise<T>,
): Promise<T> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'latchkey-bench-in-process-'));
  try {
    const { storage, description } = await openStorage({ ...configFromEnv(), dataDir });
    return await use(storage, description);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
