import { pbkdf2Async } from '@noble/hashes/pbkdf2.js';
import { sha512 } from '@noble/hashes/sha2.js';

export type Derive = (
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  bytes: number,
) => Promise<Uint8Array>;

/** The part of `node:crypto` PBKDF2 needs. */
interface NodePbkdf2 {
  pbkdf2(
    password: Uint8Array,
    salt: Uint8Array,
    iterations: number,
    bytes: number,
    digest: 'sha512',
    done: (err: Error | null, key: Uint8Array) => void,
  ): void;
}

/**
 * `node:crypto`'s callback `pbkdf2`, found at run time (the core imports nothing of Node's): it
 * runs wholly on libuv's thread pool, where Node 20's Web Crypto `deriveBits` kept the event
 * loop busy for about half of each stretch.
 */
function nodeDerive(): Derive | undefined {
  try {
    const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const node = runtime?.getBuiltinModule?.('node:crypto') as Partial<NodePbkdf2> | undefined;
    const pbkdf2 = node?.pbkdf2;
    if (typeof pbkdf2 !== 'function') return undefined;
    return (password, salt, iterations, bytes) =>
      new Promise((resolve, reject) =>
        pbkdf2(password, salt, iterations, bytes, 'sha512', (err, key) => {
          if (err) reject(err);
          else {
            resolve(new Uint8Array(key));
            key.fill(0);
          }
        }),
      );
  } catch {
    return undefined;
  }
}

/** The runtime's own PBKDF2 that gives @noble's bytes, found out on first use; undefined: none. */
let native: Promise<Derive | undefined> | undefined;

/** PBKDF2 on Web Crypto (runtimes without `node:crypto`; exported for its test). */
export const webCryptoDerive: Derive = async (
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  bytes: number,
) => {
  const key = await crypto.subtle.importKey('raw', password as Uint8Array<ArrayBuffer>, 'PBKDF2', false, [
    'deriveBits',
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-512', salt: salt as Uint8Array<ArrayBuffer>, iterations },
    key,
    bytes * 8,
  );
  return new Uint8Array(bits);
};

async function derivesAsNoble(derive: Derive): Promise<boolean> {
  try {
    const [password, salt] = [new Uint8Array([1, 2, 3]), new Uint8Array([4, 5])];
    const got = await derive(password, salt, 2, 64);
    const expected = await pbkdf2Async(sha512, password, salt, { c: 2, dkLen: 64 });
    return got.length === 64 && got.every((b, i) => b === expected[i]);
  } catch {
    return false;
  }
}

async function detectNative(): Promise<Derive | undefined> {
  const node = nodeDerive();
  if (node && (await derivesAsNoble(node))) return node;
  if (typeof crypto !== 'undefined' && crypto.subtle && (await derivesAsNoble(webCryptoDerive)))
    return webCryptoDerive;
  return undefined;
}

/**
 * PBKDF2-HMAC-SHA512 on the platform's native implementation where it has one (`node:crypto`'s
 * thread-pool `pbkdf2`, else Web Crypto `deriveBits`), tens of times faster than JavaScript;
 * @noble/hashes elsewhere. Same bytes either way.
 */
export async function pbkdf2Sha512(
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  bytes: number,
): Promise<Uint8Array> {
  native ??= detectNative();
  const derive = await native;
  return derive
    ? derive(password, salt, iterations, bytes)
    : pbkdf2Async(sha512, password, salt, { c: iterations, dkLen: bytes });
}
