import { concatBytes } from '@noble/hashes/utils.js';
import { TAG_BYTES } from './sealed-format.js';

/**
 * AES-256-GCM on the runtime's own `node:crypto` (Node 20.16 and later, and runtimes that copy
 * its `process.getBuiltinModule`), found at run time so the core still imports nothing of
 * Node's: one synchronous call per
 * step where Web Crypto queues a job and resolves a promise, about a seventeenth of the CPU for a
 * vault open. Undefined where the runtime has none; the vault then uses Web Crypto. The output is
 * Web Crypto's: ciphertext followed by the 16-byte tag.
 */
export interface AesGcm {
  /** A key the runtime keeps outside JavaScript's heap, for a key used again and again. */
  keyOf(raw: Uint8Array): unknown;
  encrypt(key: unknown, iv: Uint8Array, aad: Uint8Array, plaintext: Uint8Array): Uint8Array<ArrayBuffer>;
  /** Throws when the tag does not verify. */
  decrypt(key: unknown, iv: Uint8Array, aad: Uint8Array, sealed: Uint8Array): Uint8Array<ArrayBuffer>;
}

interface GcmCipher {
  setAAD(aad: Uint8Array): unknown;
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
  getAuthTag(): Uint8Array;
}

interface GcmDecipher {
  setAAD(aad: Uint8Array): unknown;
  setAuthTag(tag: Uint8Array): unknown;
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
}

interface NodeCrypto {
  createCipheriv(algorithm: 'aes-256-gcm', key: unknown, iv: Uint8Array): GcmCipher;
  createDecipheriv(algorithm: 'aes-256-gcm', key: unknown, iv: Uint8Array): GcmDecipher;
  createSecretKey(key: Uint8Array): unknown;
}

export function nodeAesGcm(): AesGcm | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  let crypto: NodeCrypto | undefined;
  try {
    crypto = runtime?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
  } catch {
    return undefined;
  }
  if (typeof crypto?.createCipheriv !== 'function' || typeof crypto.createDecipheriv !== 'function')
    return undefined;
  const node = crypto;
  return {
    keyOf: (raw) => node.createSecretKey(raw),
    encrypt(key, iv, aad, plaintext) {
      const cipher = node.createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(aad);
      const body = [cipher.update(plaintext), cipher.final(), cipher.getAuthTag()];
      const out = concatBytes(...body);
      for (const part of body) part.fill(0);
      return out;
    },
    decrypt(key, iv, aad, sealed) {
      const decipher = node.createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(aad);
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const body = [decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()];
      const out = concatBytes(...body);
      for (const part of body) part.fill(0);
      return out;
    },
  };
}
