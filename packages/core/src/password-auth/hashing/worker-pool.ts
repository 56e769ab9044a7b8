/**
 * Argon2 (hash-wasm's WebAssembly) and bcrypt (bcryptjs) on Node worker threads, so a burst of
 * sign-ins computes on other cores while the event loop keeps answering. Node's modules are
 * found at run time (`process.getBuiltinModule`): the core imports nothing of Node's, and edge
 * bundles never reach this file's Node calls.
 */
import type { Argon2Input } from './primitives.js';

interface NodeWorker {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: WorkerReply) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  on(event: 'exit', listener: (code: number) => void): void;
  ref(): void;
  unref(): void;
  terminate(): Promise<number>;
}

interface NodeWorkerThreads {
  Worker: new (
    code: string,
    options: { eval: true; workerData: unknown; resourceLimits?: { maxOldGenerationSizeMb?: number } },
  ) => NodeWorker;
}

type WorkerReply =
  | { id: number; ok: true; value: Uint8Array | boolean }
  | { id: number; ok: false; error: string };

type Job = { op: 'argon2'; input: Argon2Input } | { op: 'bcrypt'; password: string; encoded: string };

/**
 * The worker's whole program. It loads the two libraries by the paths the main thread resolved
 * (an `eval` worker has no module of its own to resolve from) and answers one job per message.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  if (tid > 0) require('node:os').setPriority(tid, workerData.nice);
} catch {}
const hashWasm = require(workerData.hashWasm);
const bcrypt = require(workerData.bcryptjs);
parentPort.on('message', async (job) => {
  try {
    let value;
    if (job.op === 'argon2') {
      const i = job.input;
      value = await hashWasm[i.variant]({
        password: i.password, salt: i.salt, parallelism: i.parallelism, iterations: i.iterations,
        memorySize: i.memoryKiB, hashLength: i.tagLength, outputType: 'binary',
      });
    } else {
      value = await bcrypt.compare(job.password, job.encoded);
    }
    parentPort.postMessage({ id: job.id, ok: true, value });
  } catch (error) {
    parentPort.postMessage({ id: job.id, ok: false, error: String(error && error.message || error) });
  }
});
`;

/**
 * The workers' scheduling priority (Linux nice, on the thread alone: /proc/thread-self names it).
 * When every core is busy the event loop thread then wins the CPU, so session checks keep their
 * pace and the hashes wait instead. Elsewhere the call fails quietly and the workers run at the
 * process's own priority.
 */
const WORKER_NICE = 10;

interface NodeRuntime {
  workerThreads: NodeWorkerThreads;
  paths: { hashWasm: string; bcryptjs: string };
}

/** Node's worker threads and the libraries' paths, or undefined off Node or when either is missing. */
export function nodeWorkerRuntime(): NodeRuntime | undefined {
  const g = globalThis as {
    process?: { release?: { name?: string }; getBuiltinModule?: (id: string) => unknown };
    Bun?: unknown;
    Deno?: unknown;
  };
  if (g.Bun !== undefined || g.Deno !== undefined) return;
  if (g.process?.release?.name !== 'node' || typeof g.process.getBuiltinModule !== 'function') return;
  try {
    const workerThreads = g.process.getBuiltinModule('node:worker_threads') as NodeWorkerThreads | undefined;
    const nodeModule = g.process.getBuiltinModule('node:module') as
      | { createRequire(from: string): { resolve(id: string): string } }
      | undefined;
    if (!workerThreads?.Worker || !nodeModule) return;
    const require = nodeModule.createRequire(import.meta.url);
    return {
      workerThreads,
      paths: { hashWasm: require.resolve('hash-wasm'), bcryptjs: require.resolve('bcryptjs') },
    };
  } catch {
    // A single-file bundle with no node_modules beside it: no paths to give a worker.
    return;
  }
}

export interface WorkerPool {
  argon2(input: Argon2Input): Promise<Uint8Array>;
  bcryptVerify(password: string, encoded: string): Promise<boolean>;
  close(): Promise<void>;
}

interface Slot {
  worker: NodeWorker;
  busy: number;
}

/**
 * `size` workers, started on first use. Jobs go to the least busy worker; callers (the bounded
 * queue) never run more than `size` at once, so each job has a worker to itself. Idle workers
 * are unref'd, so they never keep a process from exiting; one with a job in hand is ref'd, so a
 * script awaiting a hash does not exit under it.
 */
export function workerPool(runtime: NodeRuntime, size: number): WorkerPool {
  const slots: Slot[] = [];
  const waiting = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; slot: Slot }
  >();
  let nextId = 1;

  const settle = (slot: Slot) => {
    slot.busy--;
    if (slot.busy === 0) slot.worker.unref();
  };

  const start = (): Slot => {
    const worker = new runtime.workerThreads.Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { ...runtime.paths, nice: WORKER_NICE },
    });
    const slot: Slot = { worker, busy: 0 };
    worker.unref();
    worker.on('message', (reply) => {
      const job = waiting.get(reply.id);
      if (!job) return;
      waiting.delete(reply.id);
      settle(slot);
      if (reply.ok) job.resolve(reply.value);
      else job.reject(new Error(`password hashing worker: ${reply.error}`));
    });
    // A worker that dies (out of memory, killed) fails its jobs and leaves the pool; the next
    // job starts a fresh one.
    const fail = (error: Error) => {
      const index = slots.indexOf(slot);
      if (index >= 0) slots.splice(index, 1);
      for (const [id, job] of waiting)
        if (job.slot === slot) {
          waiting.delete(id);
          job.reject(error);
        }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`password hashing worker exited with code ${code}`)));
    slots.push(slot);
    return slot;
  };

  const pick = (): Slot => {
    const idle = slots.find((s) => s.busy === 0);
    if (idle) return idle;
    if (slots.length < size) return start();
    return slots.reduce((a, b) => (b.busy < a.busy ? b : a));
  };

  const run = <T>(job: Job): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const slot = pick();
      const id = nextId++;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, slot });
      if (slot.busy++ === 0) slot.worker.ref();
      slot.worker.postMessage({ id, ...job });
    });

  return {
    argon2: (input) => run<Uint8Array>({ op: 'argon2', input }),
    bcryptVerify: (password, encoded) => run<boolean>({ op: 'bcrypt', password, encoded }),
    close: async () => {
      const all = slots.splice(0);
      await Promise.all(all.map((s) => s.worker.terminate()));
    },
  };
}
