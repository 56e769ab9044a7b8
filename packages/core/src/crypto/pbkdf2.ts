import { pbkdf2Async } from '@noble/hashes/pbkdf2.js';
import { sha512 } from '@noble/hashes/sha2.js';

/** Whether the runtime's Web Crypto derives PBKDF2 bits; found out on first use. */
let native: Promise<boolean> | undefined;

const nativeDerive = async (password: Uint8Array, salt: Uint8Array, iterations: number, bytes: number) => {
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

async function detectNative(): Promise<boolean> {
  try {
    const [password, salt] = [new Uint8Array([1, 2, 3]), new Uint8Array([4, 5])];
    const got = await nativeDerive(password, salt, 2, 64);
    const expected = await pbkdf2Async(sha512, password, salt, { c: 2, dkLen: 64 });
    return got.every((b, i) => b === expected[i]);
  } catch {
    return false;
  }
}

/**
 * PBKDF2-HMAC-SHA512 on the platform's native implementation (Web Crypto `deriveBits`) where
 * it has one, which is tens of times faster than JavaScript; @noble/hashes elsewhere. Same bytes
 * either way.
 */
export async function pbkdf2Sha512(
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  bytes: number,
): Promise<Uint8Array> {
  native ??= typeof crypto !== 'undefined' && crypto.subtle ? detectNative() : Promise.resolve(false);
  return (await native)
    ? nativeDerive(password, salt, iterations, bytes)
    : pbkdf2Async(sha512, password, salt, { c: iterations, dkLen: bytes });
}
