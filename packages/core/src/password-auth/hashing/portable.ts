import { argon2iAsync, argon2idAsync } from '@noble/hashes/argon2.js';
import { pbkdf2Async } from '@noble/hashes/pbkdf2.js';
import { scryptAsync } from '@noble/hashes/scrypt.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import bcrypt from 'bcryptjs';
import type { HashPrimitives } from './primitives.js';

/**
 * Pure JavaScript on the calling thread: runs on every runtime (workerd forbids compiling
 * WebAssembly from bytes), at a fraction of native speed. noble's async variants yield to the
 * event loop every few milliseconds, so other requests still get turns.
 */
export const portablePrimitives: HashPrimitives = {
  name: 'portable-js',
  argon2: ({ variant, version, password, salt, memoryKiB, iterations, parallelism, tagLength }) =>
    (variant === 'argon2id' ? argon2idAsync : argon2iAsync)(password, salt, {
      m: memoryKiB,
      t: iterations,
      p: parallelism,
      version: version === 19 ? 0x13 : 0x10,
      dkLen: tagLength,
      maxmem: 2 ** 32 - 1,
    }),
  bcryptVerify: (password, encoded) => bcrypt.compare(password, encoded),
  scrypt: ({ password, salt, N, r, p, dkLen }) =>
    scryptAsync(password, salt, { N, r, p, dkLen, maxmem: 2 ** 31 }),
  pbkdf2: ({ digest, password, salt, iterations, dkLen }) =>
    pbkdf2Async(digest === 'sha256' ? sha256 : sha512, password, salt, { c: iterations, dkLen }),
  close: async () => {},
};
