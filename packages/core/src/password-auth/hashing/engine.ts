import { nodeKdfs } from './node-crypto.js';
import { portablePrimitives } from './portable.js';
import type { Argon2Input, HashPrimitives } from './primitives.js';
import { wasmArgon2 } from './wasm.js';
import { nodeWorkerRuntime, type WorkerPool, workerPool } from './worker-pool.js';

type Argon2 = (input: Argon2Input) => Promise<Uint8Array>;

/** A small Argon2id that every candidate must compute exactly as noble does before it is used. */
const PROBE: Argon2Input = {
  variant: 'argon2id',
  version: 19,
  password: new Uint8Array([1, 2, 3]),
  salt: new Uint8Array(16).fill(4),
  memoryKiB: 64,
  iterations: 1,
  parallelism: 1,
  tagLength: 32,
};

async function agrees(candidate: Argon2): Promise<boolean> {
  try {
    const [got, expected] = await Promise.all([candidate(PROBE), portablePrimitives.argon2(PROBE)]);
    return got.length === expected.length && got.every((b, i) => b === expected[i]);
  } catch {
    return false;
  }
}

/**
 * The fastest primitives this runtime offers, each checked on first use against noble:
 * - Argon2: Node's own `crypto.argon2` (Node 24.7+, libuv's pool); else hash-wasm on `threads`
 *   worker threads (Node 20 and 22); else hash-wasm on this thread (Deno, Bun); else noble's
 *   JavaScript (workerd, which compiles no WebAssembly from bytes). Version 0x10 hashes and the
 *   empty password, which only noble takes, always take noble.
 * - bcrypt: bcryptjs on the worker threads where there are any, else on this thread.
 * - scrypt and PBKDF2: `node:crypto` on libuv's pool where there is one, else noble / Web Crypto.
 */
export function selectPrimitives(threads: number): HashPrimitives {
  const kdfs = nodeKdfs();
  const runtime = nodeWorkerRuntime();
  let pool: WorkerPool | undefined;
  const poolOf = () => {
    if (!runtime) return undefined;
    pool ??= workerPool(runtime, threads);
    return pool;
  };

  let name = 'portable-js';
  let chosen: Promise<Argon2> | undefined;
  const choose = async (): Promise<Argon2> => {
    if (kdfs?.argon2 && (await agrees(kdfs.argon2))) {
      name = 'node-crypto-argon2';
      return kdfs.argon2;
    }
    const onPool = poolOf();
    if (onPool && (await agrees(onPool.argon2))) {
      name = 'worker-threads-wasm';
      return onPool.argon2;
    }
    if (await agrees(wasmArgon2)) {
      name = 'wasm-in-thread';
      return wasmArgon2;
    }
    return portablePrimitives.argon2;
  };

  return {
    get name() {
      return name;
    },
    argon2: async (input) => {
      // hash-wasm refuses an empty password, and only noble has version 0x10.
      if (input.version !== 19 || input.password.length === 0) return portablePrimitives.argon2(input);
      chosen ??= choose();
      return (await chosen)(input);
    },
    bcryptVerify: (password, encoded) => (poolOf() ?? portablePrimitives).bcryptVerify(password, encoded),
    scrypt: (input) => (kdfs ?? portablePrimitives).scrypt(input),
    pbkdf2: (input) => (kdfs ?? portablePrimitives).pbkdf2(input),
    close: async () => {
      const running = pool;
      pool = undefined;
      chosen = undefined;
      await running?.close();
    },
  };
}
