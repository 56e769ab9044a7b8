import { ctr } from '@noble/ciphers/aes.js';
import { md5, sha1 } from '@noble/hashes/legacy.js';
import { timingSafeEqual, utf8 } from '../../crypto/encoding.js';
import type { HashPrimitives } from './primitives.js';
import type { StoredHash } from './stored.js';

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

/**
 * Whether `password` is the one behind `stored`. Every comparison of derived bytes is
 * constant-time; bcrypt's is its library's own.
 */
export async function verifyStored(
  primitives: HashPrimitives,
  stored: StoredHash,
  password: string,
): Promise<boolean> {
  switch (stored.kind) {
    case 'argon2': {
      const tag = await primitives.argon2({
        variant: stored.variant,
        version: stored.version,
        password: utf8(password),
        salt: stored.salt,
        memoryKiB: stored.memoryKiB,
        iterations: stored.iterations,
        parallelism: stored.parallelism,
        tagLength: stored.tag.length,
      });
      return timingSafeEqual(tag, stored.tag);
    }
    case 'bcrypt':
      return primitives.bcryptVerify(password, stored.encoded);
    case 'better-auth-scrypt': {
      // Better Auth hashes the NFKC form, so "é" typed either way is one password.
      const key = await primitives.scrypt({
        password: utf8(password.normalize('NFKC')),
        salt: stored.salt,
        N: 2 ** stored.logN,
        r: stored.r,
        p: stored.p,
        dkLen: stored.key.length,
      });
      return timingSafeEqual(key, stored.key);
    }
    case 'firebase-scrypt': {
      const derived = await primitives.scrypt({
        password: utf8(password),
        salt: concat(stored.salt, stored.separator),
        N: 2 ** stored.logN,
        r: stored.r,
        p: 1,
        dkLen: 32,
      });
      // Firebase encrypts its project signer key with the derived key: AES-256-CTR, zero IV.
      const sealed = ctr(derived, new Uint8Array(16)).encrypt(stored.signerKey);
      return timingSafeEqual(sealed, stored.hash);
    }
    case 'pbkdf2': {
      const key = await primitives.pbkdf2({
        digest: stored.digest,
        password: utf8(password),
        salt: utf8(stored.salt),
        iterations: stored.iterations,
        dkLen: stored.key.length,
      });
      return timingSafeEqual(key, stored.key);
    }
    case 'salted-digest': {
      const input = stored.saltAt === 'start' ? stored.salt + password : password + stored.salt;
      const digest = (stored.digest === 'md5' ? md5 : sha1)(utf8(input));
      return timingSafeEqual(digest, stored.hash);
    }
  }
}
