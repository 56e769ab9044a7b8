import { LatchkeyError } from '../errors.js';
import { decodeBase64Url, encodeBase64Url } from './base64url.js';

/**
 * The sealed-blob format, version 1 (documented in docs/key-vault.md):
 *
 *   lkv1.<keyVersion>.<wrapIv>.<wrappedKey>.<iv>.<ciphertext>
 *
 * `keyVersion` is the decimal master-key version; the other parts are unpadded base64url:
 * `wrapIv` (12 bytes) and `wrappedKey` (32-byte data key + 16-byte tag) are the AES-256-GCM
 * encryption of the data key under the master key; `iv` (12 bytes) and `ciphertext`
 * (plaintext + 16-byte tag) the AES-256-GCM encryption of the plaintext under the data key.
 * Both encryptions take `associatedData(keyVersion, context)` as additional authenticated data.
 */
export const SEALED_PREFIX = 'lkv1';

export const IV_BYTES = 12;
export const DATA_KEY_BYTES = 32;
export const TAG_BYTES = 16;

export interface SealedParts {
  keyVersion: number;
  wrapIv: Uint8Array<ArrayBuffer>;
  wrappedKey: Uint8Array<ArrayBuffer>;
  iv: Uint8Array<ArrayBuffer>;
  ciphertext: Uint8Array<ArrayBuffer>;
}

/** Positive decimal without leading zeros, so one version has exactly one spelling. */
export const KEY_VERSION_PATTERN = /^[1-9][0-9]{0,8}$/;

const textEncoder = new TextEncoder();

/** The blob's header followed by the context: binds both, so neither can be swapped. */
export const associatedData = (keyVersion: number, context: string): Uint8Array<ArrayBuffer> =>
  textEncoder.encode(`${SEALED_PREFIX}.${keyVersion}.${context}`);

export const formatSealed = (p: SealedParts): string =>
  [SEALED_PREFIX, String(p.keyVersion), p.wrapIv, p.wrappedKey, p.iv, p.ciphertext]
    .map((part) => (typeof part === 'string' ? part : encodeBase64Url(part)))
    .join('.');

/** Splits a sealed string into its parts; anything malformed is `vault_open_failed`. */
export function parseSealed(sealed: string): SealedParts {
  const fields = typeof sealed === 'string' ? sealed.split('.') : [];
  const [prefix, version, ...encoded] = fields;
  if (fields.length !== 6 || prefix !== SEALED_PREFIX || !KEY_VERSION_PATTERN.test(version ?? '')) {
    throw new LatchkeyError('vault_open_failed');
  }
  const [wrapIv, wrappedKey, iv, ciphertext] = encoded.map(decodeBase64Url);
  if (
    wrapIv?.length !== IV_BYTES ||
    wrappedKey?.length !== DATA_KEY_BYTES + TAG_BYTES ||
    iv?.length !== IV_BYTES ||
    ciphertext === undefined ||
    ciphertext.length < TAG_BYTES
  ) {
    throw new LatchkeyError('vault_open_failed');
  }
  return { keyVersion: Number(version), wrapIv, wrappedKey, iv, ciphertext };
}

/** The master-key version a sealed string names, e.g. to find blobs a rotation must rewrap. */
export const sealedKeyVersion = (sealed: string): number => parseSealed(sealed).keyVersion;
