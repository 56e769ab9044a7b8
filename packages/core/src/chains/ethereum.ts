import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { hex } from '@scure/base';
import { utf8 } from '../crypto/encoding.js';
import { invalidPrivateKey, parseHex } from './bytes.js';
import { deriveSecp256k1, deriveSecp256k1Async } from './secp256k1-hd.js';
import { secp256k1PublicKey } from './secp256k1-public.js';
import type { ChainModule, DerivedKey } from './types.js';

const PATH = "m/44'/60'/0'/0/0";

/** EIP-55: a hex letter is upper case when the matching nibble of keccak256(lower-case hex) is ≥ 8. */
export function toChecksumAddress(address: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error('Not a 20-byte hex ethereum address.');
  const lower = address.slice(2).toLowerCase();
  const hash = hex.encode(keccak_256(utf8(lower)));
  let out = '0x';
  for (let i = 0; i < 40; i++)
    out += Number.parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  return out;
}

/** 0x + 40 hex; a mixed-case address must carry a correct EIP-55 checksum. */
export function isValidEthereumAddress(address: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
  const body = address.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return toChecksumAddress(address) === address;
}

/** Whether two valid addresses name the same account, whatever their letter case. */
export function ethereumAddressesEqual(a: string, b: string): boolean {
  return isValidEthereumAddress(a) && isValidEthereumAddress(b) && a.toLowerCase() === b.toLowerCase();
}

/** The address of an uncompressed SEC1 key already known to be on the curve: keccak256 of X‖Y. */
const addressOfPoint = (uncompressed: Uint8Array) =>
  toChecksumAddress(`0x${hex.encode(keccak_256(uncompressed.subarray(1)).subarray(12))}`);

function ethereumAddress(publicKey: Uint8Array): string {
  // Compressed or uncompressed SEC1, checked to be a point of the curve.
  return addressOfPoint(secp256k1.Point.fromBytes(publicKey).toBytes(false));
}

function keyFrom(privateKey: Uint8Array, path: string | null): DerivedKey {
  // Computed from the secret just now: a point of the curve, not decoded and checked again.
  const publicKey = secp256k1PublicKey(privateKey, false);
  return { privateKey, publicKey, address: addressOfPoint(publicKey), path };
}

export const ethereum: ChainModule = {
  walletType: 'ethereum',
  curve: 'secp256k1',
  derivationPath: () => PATH,
  deriveFromMnemonic: (mnemonic) => keyFrom(deriveSecp256k1(mnemonic, PATH), PATH),
  deriveFromMnemonicAsync: async (mnemonic) => keyFrom(await deriveSecp256k1Async(mnemonic, PATH), PATH),
  fromPrivateKey(encoded) {
    const key = parseHex(encoded.trim(), 32);
    if (!key || !secp256k1.utils.isValidSecretKey(key)) {
      throw invalidPrivateKey('An ethereum private key is 32 bytes of hex (with or without 0x).');
    }
    return keyFrom(key, null);
  },
  encodePrivateKey: (privateKey) => `0x${hex.encode(privateKey)}`,
  decodeSecret(encoded) {
    const key = parseHex(encoded, 32);
    if (!key) throw invalidPrivateKey('An ethereum private key is 32 bytes of hex.');
    return key;
  },
  address: ethereumAddress,
  isValidAddress: isValidEthereumAddress,
};
