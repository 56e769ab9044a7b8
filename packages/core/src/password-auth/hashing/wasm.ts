import { argon2i, argon2id } from 'hash-wasm';
import type { Argon2Input } from './primitives.js';

/**
 * hash-wasm's Argon2 on the calling thread: about four times noble's speed, for runtimes that
 * allow WebAssembly compiled from bytes (Deno, Bun, browsers; not workerd) but give Latchkey no
 * worker threads. Argon2 version 0x13 only.
 */
export const wasmArgon2 = (i: Argon2Input): Promise<Uint8Array> =>
  (i.variant === 'argon2id' ? argon2id : argon2i)({
    password: i.password,
    salt: i.salt,
    parallelism: i.parallelism,
    iterations: i.iterations,
    memorySize: i.memoryKiB,
    hashLength: i.tagLength,
    outputType: 'binary',
  });
