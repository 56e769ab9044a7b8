import { ed25519 } from '@noble/curves/ed25519.js';
import { base32 } from '@scure/base';
import { invalidPrivateKey, wipe } from './bytes.js';
import { slip10Ed25519FromMnemonic, slip10Ed25519FromMnemonicAsync } from './slip10.js';
import type { ChainModule, DerivedKey } from './types.js';

// SEP-0005: account 0 is m/44'/148'/0' (no change or index levels).
const PATH = "m/44'/148'/0'";

export const strKeyVersion = {
  /** `G…` account id (ed25519 public key). */
  publicKey: 6 << 3,
  /** `S…` secret seed (ed25519 seed). */
  secretSeed: 18 << 3,
} as const;

function crc16xmodem(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** StrKey: base32(version ‖ 32-byte payload ‖ CRC16-XModem little-endian), 56 characters. */
export function strKeyEncode(version: number, payload: Uint8Array): string {
  if (payload.length !== 32) throw new Error('StrKey payloads here are 32 bytes.');
  const data = new Uint8Array(35);
  data[0] = version;
  data.set(payload, 1);
  const crc = crc16xmodem(data.subarray(0, 33));
  data[33] = crc & 0xff;
  data[34] = crc >> 8;
  try {
    return base32.encode(data);
  } finally {
    wipe(data);
  }
}

/** The 32-byte payload of a StrKey of this version, or undefined (wrong version, length, checksum). */
export function strKeyDecode(version: number, encoded: string): Uint8Array | undefined {
  if (encoded.length !== 56) return undefined;
  let data: Uint8Array;
  try {
    data = base32.decode(encoded);
  } catch {
    return undefined;
  }
  const crc = crc16xmodem(data.subarray(0, 33));
  const ok = data.length === 35 && data[0] === version && data[33] === (crc & 0xff) && data[34] === crc >> 8;
  const payload = ok ? data.slice(1, 33) : undefined;
  wipe(data);
  return payload;
}

function keyFrom(seed: Uint8Array, path: string | null): DerivedKey {
  const publicKey = ed25519.getPublicKey(seed);
  return { privateKey: seed, publicKey, address: strKeyEncode(strKeyVersion.publicKey, publicKey), path };
}

export const stellar: ChainModule = {
  walletType: 'XLM',
  curve: 'ed25519',
  derivationPath: () => PATH,
  deriveFromMnemonic: (mnemonic) => keyFrom(slip10Ed25519FromMnemonic(mnemonic, PATH), PATH),
  deriveFromMnemonicAsync: async (mnemonic) =>
    keyFrom(await slip10Ed25519FromMnemonicAsync(mnemonic, PATH), PATH),
  fromPrivateKey(encoded) {
    const seed = strKeyDecode(strKeyVersion.secretSeed, encoded.trim());
    if (!seed) throw invalidPrivateKey('A Stellar private key is an S… secret seed.');
    return keyFrom(seed, null);
  },
  encodePrivateKey: (privateKey) => strKeyEncode(strKeyVersion.secretSeed, privateKey),
  decodeSecret(encoded) {
    const seed = strKeyDecode(strKeyVersion.secretSeed, encoded);
    if (!seed) throw invalidPrivateKey('A Stellar private key is an S… secret seed.');
    return seed;
  },
  address: (publicKey) => strKeyEncode(strKeyVersion.publicKey, publicKey),
  isValidAddress: (address) => strKeyDecode(strKeyVersion.publicKey, address) !== undefined,
};
