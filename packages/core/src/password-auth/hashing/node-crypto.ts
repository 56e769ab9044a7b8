/**
 * `node:crypto`'s callback KDFs, found at run time (the core imports nothing of Node's). Each
 * runs on libuv's thread pool, off the event loop. `argon2` is there from Node 24.7 only.
 */
import type { Argon2Input, Pbkdf2Input, ScryptInput } from './primitives.js';

type Done = (err: Error | null, key: Uint8Array) => void;

interface NodeCrypto {
  argon2?: (
    algorithm: 'argon2id' | 'argon2i',
    parameters: {
      message: Uint8Array;
      nonce: Uint8Array;
      parallelism: number;
      tagLength: number;
      memory: number;
      passes: number;
    },
    done: Done,
  ) => void;
  scrypt(
    password: Uint8Array,
    salt: Uint8Array,
    keylen: number,
    options: { N: number; r: number; p: number; maxmem: number },
    done: Done,
  ): void;
  pbkdf2(
    password: Uint8Array,
    salt: Uint8Array,
    iterations: number,
    keylen: number,
    digest: string,
    done: Done,
  ): void;
}

export interface NodeKdfs {
  /** Undefined before Node 24.7. Argon2 version 0x13 only. */
  argon2: ((input: Argon2Input) => Promise<Uint8Array>) | undefined;
  scrypt(input: ScryptInput): Promise<Uint8Array>;
  pbkdf2(input: Pbkdf2Input): Promise<Uint8Array>;
}

const promised = (call: (done: Done) => void) =>
  new Promise<Uint8Array>((resolve, reject) =>
    call((err, key) =>
      err ? reject(err) : resolve(new Uint8Array(key.buffer, key.byteOffset, key.byteLength)),
    ),
  );

export function nodeKdfs(): NodeKdfs | undefined {
  try {
    const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const node = runtime?.getBuiltinModule?.('node:crypto') as Partial<NodeCrypto> | undefined;
    if (typeof node?.scrypt !== 'function' || typeof node.pbkdf2 !== 'function') return undefined;
    const { scrypt, pbkdf2, argon2 } = node as NodeCrypto;
    return {
      argon2:
        typeof argon2 === 'function'
          ? (i) =>
              promised((done) =>
                argon2(
                  i.variant,
                  {
                    message: i.password,
                    nonce: i.salt,
                    parallelism: i.parallelism,
                    tagLength: i.tagLength,
                    memory: i.memoryKiB,
                    passes: i.iterations,
                  },
                  done,
                ),
              )
          : undefined,
      scrypt: ({ password, salt, N, r, p, dkLen }) =>
        // maxmem: the scrypt block's 128·N·r bytes and a margin; COST_LIMITS caps N·r already.
        promised((done) =>
          scrypt(password, salt, dkLen, { N, r, p, maxmem: 128 * N * r * 2 + 1024 * 1024 }, done),
        ),
      pbkdf2: ({ digest, password, salt, iterations, dkLen }) =>
        promised((done) => pbkdf2(password, salt, iterations, dkLen, digest, done)),
    };
  } catch {
    return undefined;
  }
}
