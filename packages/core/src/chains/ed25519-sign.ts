import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64urlnopad, hex } from '@scure/base';
import { wipe } from './bytes.js';

// PKCS#8 PrivateKeyInfo for an Ed25519 seed (RFC 8410): this DER prefix, then the 32 bytes.
const PKCS8_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

/** An Ed25519 key ready to sign: its public key, and signing by it. */
export interface Ed25519SigningKey {
  publicKey: Uint8Array;
  sign(message: Uint8Array): Promise<Uint8Array>;
}

async function nativeKey(seed: Uint8Array): Promise<Ed25519SigningKey> {
  const pkcs8 = new Uint8Array(PKCS8_PREFIX.length + 32);
  pkcs8.set(PKCS8_PREFIX);
  pkcs8.set(seed, PKCS8_PREFIX.length);
  try {
    const key = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, true, ['sign']);
    // The runtime computes the public key once, at import; reading it back costs no curve work.
    const { x } = await crypto.subtle.exportKey('jwk', key);
    if (!x) throw new Error('No public key in the JWK.');
    return {
      publicKey: base64urlnopad.decode(x),
      sign: async (message) =>
        new Uint8Array(
          await crypto.subtle.sign({ name: 'Ed25519' }, key, message as Uint8Array<ArrayBuffer>),
        ),
    };
  } finally {
    wipe(pkcs8);
  }
}

function nobleKey(seed: Uint8Array): Ed25519SigningKey {
  const own = seed.slice();
  return {
    publicKey: ed25519.getPublicKey(own),
    sign: async (message) => ed25519.sign(message, own),
  };
}

/** Whether this runtime's Web Crypto does Ed25519 as RFC 8032 says; found out on first use. */
let native: Promise<boolean> | undefined;

async function detectNative(): Promise<boolean> {
  try {
    const seed = new Uint8Array(32).fill(1);
    const message = new Uint8Array([1, 2, 3]);
    const key = await nativeKey(seed);
    const [got, expected] = [await key.sign(message), ed25519.sign(message, seed)];
    const publicKey = ed25519.getPublicKey(seed);
    return (
      got.length === 64 &&
      got.every((b, i) => b === expected[i]) &&
      key.publicKey.every((b, i) => b === publicKey[i])
    );
  } catch {
    return false;
  }
}

/** How many imported keys are kept, and for how long after their last use. */
const IMPORTED_KEYS_MAX = 1024;
const IMPORTED_KEY_TTL_MS = 60_000;

/**
 * Web Crypto keys already imported, by SHA-256 of their seed. An import computes the public key
 * (a scalar multiplication, most of what import-then-sign costs), so a wallet that signs again
 * soon reuses its key. Only a caller holding the seed can name an entry; the keys are not
 * extractable; the seed itself is not kept.
 */
const imported = new Map<string, { key: Promise<Ed25519SigningKey>; until: number }>();

function cachedNativeKey(seed: Uint8Array): Promise<Ed25519SigningKey> {
  const id = hex.encode(sha256(seed));
  const now = Date.now();
  const hit = imported.get(id);
  // Re-inserted on use: the Map's order is then least recently used first.
  imported.delete(id);
  if (hit && hit.until > now) {
    imported.set(id, { key: hit.key, until: now + IMPORTED_KEY_TTL_MS });
    return hit.key;
  }
  const key = nativeKey(seed);
  key.catch(() => imported.delete(id));
  imported.set(id, { key, until: now + IMPORTED_KEY_TTL_MS });
  if (imported.size > IMPORTED_KEYS_MAX) imported.delete(imported.keys().next().value!);
  return key;
}

/**
 * An Ed25519 (RFC 8032) key from its 32-byte seed: on the runtime's Web Crypto where it has
 * Ed25519 (Node 20, Deno, recent browsers), several times faster than JavaScript, imported once
 * per seed (see `imported`); else @noble. The noble fallback copies the seed, so callers may
 * wipe theirs once the key is made.
 */
export async function ed25519SigningKey(seed: Uint8Array): Promise<Ed25519SigningKey> {
  native ??= typeof crypto !== 'undefined' && crypto.subtle ? detectNative() : Promise.resolve(false);
  return (await native) ? cachedNativeKey(seed) : nobleKey(seed);
}

/** Signs `message` with the key of `seed` (see `ed25519SigningKey`). */
export async function ed25519Sign(message: Uint8Array, seed: Uint8Array): Promise<Uint8Array> {
  return (await ed25519SigningKey(seed)).sign(message);
}
