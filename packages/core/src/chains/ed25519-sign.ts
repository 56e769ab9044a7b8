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

const pkcs8Of = (seed: Uint8Array) => {
  const pkcs8 = new Uint8Array(PKCS8_PREFIX.length + 32);
  pkcs8.set(PKCS8_PREFIX);
  pkcs8.set(seed, PKCS8_PREFIX.length);
  return pkcs8;
};

/** An Ed25519 key on Web Crypto (what runtimes without `node:crypto` use; exported for its test). */
export async function webCryptoKey(seed: Uint8Array): Promise<Ed25519SigningKey> {
  const pkcs8 = pkcs8Of(seed);
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

/** The part of `node:crypto` an Ed25519 key needs. */
interface NodeEd25519 {
  createPrivateKey(input: { key: Uint8Array; format: 'der'; type: 'pkcs8' }): unknown;
  createPublicKey(privateKey: unknown): { export(options: { format: 'jwk' }): { x?: string } };
  sign(algorithm: null, data: Uint8Array, key: unknown): Uint8Array;
}

/** The runtime's `node:crypto` (found at run time: the core imports nothing of Node's), or undefined. */
function nodeCrypto(): NodeEd25519 | undefined {
  try {
    const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const node = runtime?.getBuiltinModule?.('node:crypto') as Partial<NodeEd25519> | undefined;
    return typeof node?.createPrivateKey === 'function' &&
      typeof node.createPublicKey === 'function' &&
      typeof node.sign === 'function'
      ? (node as NodeEd25519)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A key on `node:crypto`: its one synchronous `sign` costs about half the CPU of Web Crypto's,
 * which queues a job on the thread pool and resolves a promise for each signature.
 */
function nodeKey(node: NodeEd25519, seed: Uint8Array): Ed25519SigningKey {
  const pkcs8 = pkcs8Of(seed);
  try {
    const key = node.createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
    const { x } = node.createPublicKey(key).export({ format: 'jwk' });
    if (!x) throw new Error('No public key in the JWK.');
    return {
      publicKey: base64urlnopad.decode(x),
      sign: async (message) => new Uint8Array(node.sign(null, message, key)),
    };
  } finally {
    wipe(pkcs8);
  }
}

/** An Ed25519 key on @noble (runtimes with neither; exported for its test). */
export function nobleKey(seed: Uint8Array): Ed25519SigningKey {
  const own = seed.slice();
  return {
    publicKey: ed25519.getPublicKey(own),
    sign: async (message) => ed25519.sign(message, own),
  };
}

type NativeKey = (seed: Uint8Array) => Ed25519SigningKey | Promise<Ed25519SigningKey>;

/**
 * The runtime's own Ed25519, checked on first use to sign as RFC 8032 says: `node:crypto` where
 * there is one, else Web Crypto (Deno, browsers, edge runtimes); undefined when neither does.
 */
let native: Promise<NativeKey | undefined> | undefined;

async function signsAsNoble(make: NativeKey): Promise<boolean> {
  try {
    const seed = new Uint8Array(32).fill(1);
    const message = new Uint8Array([1, 2, 3]);
    const key = await make(seed);
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

async function detectNative(): Promise<NativeKey | undefined> {
  const node = nodeCrypto();
  if (node) {
    const make: NativeKey = (seed) => nodeKey(node, seed);
    if (await signsAsNoble(make)) return make;
  }
  if (typeof crypto !== 'undefined' && crypto.subtle && (await signsAsNoble(webCryptoKey)))
    return webCryptoKey;
  return undefined;
}

/** How many imported keys are kept, and for how long after their last use. */
const IMPORTED_KEYS_MAX = 1024;
const IMPORTED_KEY_TTL_MS = 60_000;

/**
 * Native keys already imported, by SHA-256 of their seed. An import computes the public key
 * (a scalar multiplication, most of what import-then-sign costs), so a wallet that signs again
 * soon reuses its key. Only a caller holding the seed can name an entry; the keys are not
 * extractable; the seed itself is not kept.
 */
const imported = new Map<string, { key: Promise<Ed25519SigningKey>; until: number }>();

function cachedNativeKey(make: NativeKey, seed: Uint8Array): Promise<Ed25519SigningKey> {
  const id = hex.encode(sha256(seed));
  const now = Date.now();
  const hit = imported.get(id);
  // Re-inserted on use: the Map's order is then least recently used first.
  imported.delete(id);
  if (hit && hit.until > now) {
    imported.set(id, { key: hit.key, until: now + IMPORTED_KEY_TTL_MS });
    return hit.key;
  }
  // A promise either way (Web Crypto's import is one): a thrown import is a rejected entry.
  const key = (async () => make(seed))();
  key.catch(() => imported.delete(id));
  imported.set(id, { key, until: now + IMPORTED_KEY_TTL_MS });
  if (imported.size > IMPORTED_KEYS_MAX) imported.delete(imported.keys().next().value!);
  return key;
}

/**
 * An Ed25519 (RFC 8032) key from its 32-byte seed: on the runtime's own Ed25519 where it has one
 * (`node:crypto`, else Web Crypto: Node 20, Deno, recent browsers), several times faster than
 * JavaScript, imported once per seed (see `imported`); else @noble. The noble fallback copies the
 * seed, so callers may wipe theirs once the key is made.
 */
export async function ed25519SigningKey(seed: Uint8Array): Promise<Ed25519SigningKey> {
  native ??= detectNative();
  const make = await native;
  return make ? cachedNativeKey(make, seed) : nobleKey(seed);
}

/** Signs `message` with the key of `seed` (see `ed25519SigningKey`). */
export async function ed25519Sign(message: Uint8Array, seed: Uint8Array): Promise<Uint8Array> {
  return (await ed25519SigningKey(seed)).sign(message);
}
