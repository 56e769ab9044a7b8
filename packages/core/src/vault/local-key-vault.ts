import { z } from 'zod';
import { LatchkeyError } from '../errors.js';
import type { KeyVault } from '../ports/key-vault.js';
import { decodeBase64Loose, encodeBase64Url } from './base64url.js';
import { type AesGcm, nodeAesGcm } from './node-aes-gcm.js';
import {
  associatedData,
  DATA_KEY_BYTES,
  formatSealed,
  IV_BYTES,
  KEY_VERSION_PATTERN,
  parseSealed,
  type SealedParts,
} from './sealed-format.js';

const masterKeySchema = z.string().transform((text, ctx) => {
  const bytes = decodeBase64Loose(text);
  if (bytes?.length !== DATA_KEY_BYTES) {
    // The message never echoes the value: it is a secret.
    ctx.addIssue({
      code: 'custom',
      message: 'each vault key must be 32 bytes in base64 or base64url (generateVaultKey() makes one)',
    });
    return z.NEVER;
  }
  return bytes;
});

export const localKeyVaultOptionsSchema = z
  .strictObject({
    /** Master keys by version: 32 bytes each, base64 or base64url. Keep every version still in use. */
    keys: z.record(
      z.string().regex(KEY_VERSION_PATTERN, 'key versions must be positive integers'),
      masterKeySchema,
    ),
    /** The version that seals new data. */
    current: z.int().positive(),
  })
  .refine((o) => String(o.current) in o.keys, {
    message: 'current must be one of the versions in keys',
    path: ['current'],
  });

export type LocalKeyVaultOptions = z.input<typeof localKeyVaultOptionsSchema>;

export interface LocalKeyVault extends KeyVault {
  /** The master-key version new seals use. */
  readonly currentVersion: number;
  /**
   * Opens `sealed` and seals it again under the current version with a fresh data key; the
   * step that lets an old master key be retired. Fails as `open` does.
   */
  rewrap(sealed: string, context: string): Promise<string>;
}

/**
 * The default KeyVault: AES-256-GCM envelope encryption under master keys held in
 * configuration. Each seal uses a new random data key, wrapped by the current master key.
 * Uses the runtime's node:crypto where it has one, Web Crypto elsewhere: it runs wherever the
 * core does, and the blobs are the same.
 */
export function localKeyVault(options: LocalKeyVaultOptions): LocalKeyVault {
  const { keys, current } = localKeyVaultOptionsSchema.parse(options);
  const imported = new Map<number, Promise<CryptoKey>>();

  const masterKey = (version: number): Promise<CryptoKey> => {
    let key = imported.get(version);
    if (!key) {
      const raw = keys[String(version)];
      if (!raw) throw new LatchkeyError('vault_key_missing');
      key = crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt', 'unwrapKey']);
      imported.set(version, key);
    }
    return key;
  };

  const node = nodeAesGcm();
  const nodeKeys = new Map<number, unknown>();
  const nodeMasterKey = (gcm: AesGcm, version: number): unknown => {
    let key = nodeKeys.get(version);
    if (key === undefined) {
      const raw = keys[String(version)];
      if (!raw) throw new LatchkeyError('vault_key_missing');
      key = gcm.keyOf(raw);
      nodeKeys.set(version, key);
    }
    return key;
  };

  // The same blob either way (docs/key-vault.md); node:crypto, where the runtime has it, costs a
  // fraction of Web Crypto's per-step job and promise (docs/decisions.md, "Wallet speed").
  const sealWithNode = (gcm: AesGcm, plaintext: Uint8Array, context: string): string => {
    const dataKey = randomBytes(DATA_KEY_BYTES);
    try {
      const additionalData = associatedData(current, context);
      const iv = randomBytes(IV_BYTES);
      const wrapIv = randomBytes(IV_BYTES);
      return formatSealed({
        keyVersion: current,
        wrapIv,
        wrappedKey: gcm.encrypt(nodeMasterKey(gcm, current), wrapIv, additionalData, dataKey),
        iv,
        ciphertext: gcm.encrypt(dataKey, iv, additionalData, plaintext),
      });
    } finally {
      dataKey.fill(0);
    }
  };

  const openWithNode = (gcm: AesGcm, parts: SealedParts, context: string): Uint8Array => {
    const master = nodeMasterKey(gcm, parts.keyVersion);
    const additionalData = associatedData(parts.keyVersion, context);
    let dataKey: Uint8Array | undefined;
    try {
      dataKey = gcm.decrypt(master, parts.wrapIv, additionalData, parts.wrappedKey);
      return gcm.decrypt(dataKey, parts.iv, additionalData, parts.ciphertext);
    } catch (cause) {
      throw new LatchkeyError('vault_open_failed', undefined, { cause });
    } finally {
      dataKey?.fill(0);
    }
  };

  const seal = async (plaintext: Uint8Array, context: string): Promise<string> => {
    if (node) return sealWithNode(node, plaintext, context);
    const dataKeyBytes = randomBytes(DATA_KEY_BYTES);
    try {
      const dataKey = await crypto.subtle.importKey('raw', dataKeyBytes, 'AES-GCM', false, ['encrypt']);
      const additionalData = associatedData(current, context);
      const iv = randomBytes(IV_BYTES);
      const wrapIv = randomBytes(IV_BYTES);
      const ciphertext = await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData },
        dataKey,
        new Uint8Array(plaintext),
      );
      const wrappedKey = await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv: wrapIv, additionalData },
        await masterKey(current),
        dataKeyBytes,
      );
      return formatSealed({
        keyVersion: current,
        wrapIv,
        wrappedKey: new Uint8Array(wrappedKey),
        iv,
        ciphertext: new Uint8Array(ciphertext),
      });
    } finally {
      dataKeyBytes.fill(0);
    }
  };

  const open = async (sealed: string, context: string): Promise<Uint8Array> => {
    const parts = parseSealed(sealed);
    if (node) return openWithNode(node, parts, context);
    const master = await masterKey(parts.keyVersion);
    const additionalData = associatedData(parts.keyVersion, context);
    try {
      // Unwrapped straight into a key: the data key's bytes never reach JavaScript, and the
      // open is two steps of Web Crypto, not three.
      const dataKey = await crypto.subtle.unwrapKey(
        'raw',
        parts.wrappedKey,
        master,
        { name: 'AES-GCM', iv: parts.wrapIv, additionalData },
        'AES-GCM',
        false,
        ['decrypt'],
      );
      return new Uint8Array(
        await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: parts.iv, additionalData },
          dataKey,
          parts.ciphertext,
        ),
      );
    } catch (cause) {
      // GCM authentication failed: wrong master key, wrong context or a changed byte. The
      // cases are indistinguishable by design, and no partial plaintext is ever returned.
      throw new LatchkeyError('vault_open_failed', undefined, { cause });
    }
  };

  return {
    currentVersion: current,
    seal,
    open,
    rewrap: async (sealed, context) => {
      const plaintext = await open(sealed, context);
      try {
        return await seal(plaintext, context);
      } finally {
        plaintext.fill(0);
      }
    },
  };
}

/** A new random master key: 32 bytes, base64url. Put it in configuration, never in code. */
export const generateVaultKey = (): string => encodeBase64Url(randomBytes(DATA_KEY_BYTES));

const randomBytes = (n: number): Uint8Array<ArrayBuffer> => crypto.getRandomValues(new Uint8Array(n));
