import { blake2b } from '@noble/hashes/blake2.js';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { base58, hex } from '@scure/base';
import * as sr25519 from '@scure/sr25519';
import { utf8 } from '../crypto/encoding.js';
import { pbkdf2Sha512 } from '../crypto/pbkdf2.js';
import { bytesEqual, invalidPrivateKey, parseHex, wipe } from './bytes.js';
import { entropyFromMnemonic } from './mnemonic.js';
import type { ChainModule, DerivedKey } from './types.js';

/** Polkadot relay chain. Other SS58 prefixes (Kusama 2, generic Substrate 42) are refused. */
const POLKADOT_PREFIX = 0;
const SS58PRE = utf8('SS58PRE');

/**
 * polkadot.js's mini-secret: PBKDF2-HMAC-SHA512 over the BIP39 *entropy* (not the mnemonic
 * sentence, unlike BIP39's seed), salt "mnemonic", 2048 rounds, first 32 of 64 bytes.
 */
export function polkadotMiniSecret(mnemonic: string): Uint8Array {
  const entropy = entropyFromMnemonic(mnemonic);
  const out = pbkdf2(sha512, entropy, utf8('mnemonic'), { c: 2048, dkLen: 64 });
  try {
    return out.slice(0, 32);
  } finally {
    wipe(entropy, out);
  }
}

/** `polkadotMiniSecret` with the stretch on the platform's native PBKDF2. */
export async function polkadotMiniSecretAsync(mnemonic: string): Promise<Uint8Array> {
  const entropy = entropyFromMnemonic(mnemonic);
  const out = await pbkdf2Sha512(entropy, utf8('mnemonic'), 2048, 64);
  try {
    return out.slice(0, 32);
  } finally {
    wipe(entropy, out);
  }
}

const ss58Checksum = (payload: Uint8Array): Uint8Array => {
  const preimage = new Uint8Array(SS58PRE.length + payload.length);
  preimage.set(SS58PRE);
  preimage.set(payload, SS58PRE.length);
  return blake2b(preimage, { dkLen: 64 }).subarray(0, 2);
};

/** SS58 with a one-byte prefix (< 64) and the 2-byte blake2b-512 checksum used for 32-byte keys. */
export function ss58Encode(publicKey: Uint8Array, prefix = POLKADOT_PREFIX): string {
  if (publicKey.length !== 32 || prefix < 0 || prefix > 63)
    throw new Error('SS58: 32-byte key, prefix 0-63.');
  const out = new Uint8Array(35);
  out[0] = prefix;
  out.set(publicKey, 1);
  out.set(ss58Checksum(out.subarray(0, 33)), 33);
  return base58.encode(out);
}

/** The public key of an SS58 address with this prefix, or undefined. */
export function ss58Decode(address: string, prefix = POLKADOT_PREFIX): Uint8Array | undefined {
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(address);
  } catch {
    return undefined;
  }
  if (bytes.length !== 35 || bytes[0] !== prefix) return undefined;
  if (!bytesEqual(ss58Checksum(bytes.subarray(0, 33)), bytes.subarray(33))) return undefined;
  return bytes.slice(1, 33);
}

/** From a 32-byte mini-secret, or a 64-byte sr25519 secret key (schnorrkel's ed25519-bytes form). */
function keyFrom(privateKey: Uint8Array, path: string | null): DerivedKey {
  const secret = privateKey.length === 32 ? sr25519.secretFromSeed(privateKey) : privateKey;
  const publicKey = sr25519.getPublicKey(secret);
  if (secret !== privateKey) wipe(secret);
  return { privateKey, publicKey, address: ss58Encode(publicKey), path };
}

export const polkadot: ChainModule = {
  walletType: 'DOT',
  curve: 'sr25519',
  // The root key pair of the mnemonic, no junctions: what polkadot.js and Talisman open.
  derivationPath: () => '',
  deriveFromMnemonic: (mnemonic) => keyFrom(polkadotMiniSecret(mnemonic), ''),
  deriveFromMnemonicAsync: async (mnemonic) => keyFrom(await polkadotMiniSecretAsync(mnemonic), ''),
  fromPrivateKey(encoded) {
    const key = parseHex(encoded.trim(), 32, 64);
    if (!key) {
      throw invalidPrivateKey(
        'A DOT private key is a 0x-hex 32-byte mini-secret or 64-byte sr25519 secret key.',
      );
    }
    try {
      return keyFrom(key, null);
    } catch (cause) {
      wipe(key);
      throw invalidPrivateKey('This is not an sr25519 secret key.', cause);
    }
  },
  encodePrivateKey: (privateKey) => `0x${hex.encode(privateKey)}`,
  decodeSecret(encoded) {
    const key = parseHex(encoded, 32, 64);
    if (!key) throw invalidPrivateKey('A DOT private key is 32 or 64 bytes of hex.');
    return key;
  },
  address: (publicKey) => ss58Encode(publicKey),
  isValidAddress: (address) => ss58Decode(address) !== undefined,
};
