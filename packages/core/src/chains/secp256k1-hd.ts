import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { utf8 } from '../crypto/encoding.js';
import { wipe } from './bytes.js';
import { bip39Seed, bip39SeedAsync } from './mnemonic.js';
import { secp256k1PublicKey } from './secp256k1-public.js';

const HARDENED = 0x80000000;
const N = secp256k1.Point.Fn.ORDER;

/** BIP32 secp256k1 private key at `path` from a mnemonic's BIP39 seed. */
export const deriveSecp256k1 = (mnemonic: string, path: string): Uint8Array =>
  secp256k1FromSeed(bip39Seed(mnemonic), path);

/** `deriveSecp256k1` with the seed stretch on the platform's native PBKDF2. */
export const deriveSecp256k1Async = async (mnemonic: string, path: string): Promise<Uint8Array> =>
  secp256k1FromSeed(await bip39SeedAsync(mnemonic), path);

const toScalar = (bytes: Uint8Array) => BigInt(`0x${bytesToHex(bytes)}`);
const fromScalar = (n: bigint) => hexToBytes(n.toString(16).padStart(64, '0'));

/**
 * BIP32 private derivation (CKDpriv) down `path` from a BIP39 seed, which is wiped. Only the
 * private key is carried: a hardened step needs no public key, and a normal one computes its
 * parent's, so a path such as m/44'/60'/0'/0/0 costs two curve multiplications, not one per
 * level as a full extended-key library spends on fingerprints.
 */
export function secp256k1FromSeed(seed: Uint8Array, path: string): Uint8Array {
  const segments = path.split('/');
  if (segments.shift() !== 'm') throw new Error(`BIP32 path must start with m: ${path}`);
  let I = hmac(sha512, utf8('Bitcoin seed'), seed);
  wipe(seed);
  let key = I.slice(0, 32);
  let chainCode = I.slice(32);
  wipe(I);
  if (!secp256k1.utils.isValidSecretKey(key)) throw new Error('BIP32: invalid master key.');
  for (const segment of segments) {
    const match = /^(\d+)(['hH]?)$/.exec(segment);
    if (!match) throw new Error(`BIP32: bad path segment ${segment}`);
    const hardened = match[2] !== '';
    const index = Number(match[1]);
    if (index >= HARDENED) throw new Error(`BIP32: index out of range in ${path}`);
    const data = new Uint8Array(37);
    if (hardened) data.set(key, 1);
    else data.set(secp256k1PublicKey(key, true));
    new DataView(data.buffer).setUint32(33, hardened ? index + HARDENED : index);
    I = hmac(sha512, chainCode, data);
    wipe(data, chainCode);
    const tweak = toScalar(I.subarray(0, 32));
    const child = (tweak + toScalar(key)) % N;
    // Probability below 2^-127; BIP32 would move to the next index, which a fixed path cannot.
    if (tweak >= N || child === 0n) throw new Error('BIP32: invalid child key.');
    wipe(key);
    key = fromScalar(child);
    chainCode = I.slice(32);
    wipe(I);
  }
  wipe(chainCode);
  return key;
}
