import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58check as base58checkWith, bech32, bech32m } from '@scure/base';
import { invalidPrivateKey, parseHex, wipe } from './bytes.js';
import { deriveSecp256k1, deriveSecp256k1Async } from './secp256k1-hd.js';
import { secp256k1PublicKey } from './secp256k1-public.js';
import type { ChainModule, ChainOptions, DerivedKey, Network } from './types.js';

const base58check = base58checkWith(sha256);

const params = {
  // BIP84 coin types: 0 for bitcoin, 1 for every test network.
  mainnet: { path: "m/84'/0'/0'/0/0", hrp: 'bc', wif: 0x80, p2pkh: 0x00, p2sh: 0x05 },
  testnet: { path: "m/84'/1'/0'/0/0", hrp: 'tb', wif: 0xef, p2pkh: 0x6f, p2sh: 0xc4 },
} as const;

const networkOf = (options?: ChainOptions): Network => options?.network ?? 'mainnet';

/** P2WPKH: segwit version 0 over hash160 of the compressed public key. */
function p2wpkhAddress(publicKey: Uint8Array, options?: ChainOptions): string {
  const compressed = secp256k1.Point.fromBytes(publicKey).toBytes(true);
  const program = ripemd160(sha256(compressed));
  return bech32.encode(params[networkOf(options)].hrp, [0, ...bech32.toWords(program)]);
}

/** Segwit (BIP173 bech32 v0, BIP350 bech32m v1+) or base58 P2PKH/P2SH for the network. */
function isValidBitcoinAddress(address: string, options?: ChainOptions): boolean {
  const p = params[networkOf(options)];
  if (/^(bc|tb)1/i.test(address)) {
    for (const codec of [bech32, bech32m]) {
      const decoded = codec.decodeUnsafe(address);
      if (!decoded || decoded.prefix !== p.hrp || decoded.words.length === 0) continue;
      const [version, ...words] = decoded.words as [number, ...number[]];
      if (version > 16 || (version === 0) !== (codec === bech32)) return false;
      const program = bech32.fromWordsUnsafe(words);
      if (!program || program.length < 2 || program.length > 40) return false;
      return version !== 0 || program.length === 20 || program.length === 32;
    }
    return false;
  }
  try {
    const payload = base58check.decode(address);
    return payload.length === 21 && (payload[0] === p.p2pkh || payload[0] === p.p2sh);
  } catch {
    return false;
  }
}

function keyFrom(privateKey: Uint8Array, path: string | null, options?: ChainOptions): DerivedKey {
  const publicKey = secp256k1PublicKey(privateKey, true);
  return { privateKey, publicKey, address: p2wpkhAddress(publicKey, options), path };
}

/** WIF of a compressed key (P2WPKH needs one) for the network, optionally `p2wpkh:`-prefixed, or 32 bytes of hex. */
function decodePrivateKey(encoded: string, network: Network): Uint8Array {
  // Electrum exports WIF with the script type in front; only P2WPKH is this wallet's address.
  const s = encoded.trim().replace(/^p2wpkh:/, '');
  if (/^[a-z0-9-]+:/.test(s)) throw invalidPrivateKey('Only p2wpkh keys (native segwit) can be imported.');
  const raw = parseHex(s, 32);
  if (raw) return raw;
  let payload: Uint8Array;
  try {
    payload = base58check.decode(s);
  } catch (cause) {
    throw invalidPrivateKey('A bitcoin private key is WIF or 32 bytes of hex.', cause);
  }
  try {
    if (payload.length === 33) {
      throw invalidPrivateKey('This WIF is for an uncompressed key, which segwit addresses cannot use.');
    }
    if (payload.length !== 34 || payload[33] !== 0x01)
      throw invalidPrivateKey('This is not a WIF private key.');
    if (payload[0] !== params[network].wif) {
      throw invalidPrivateKey(`This WIF private key is not for bitcoin ${network}.`);
    }
    return payload.slice(1, 33);
  } finally {
    wipe(payload);
  }
}

export const bitcoin: ChainModule = {
  walletType: 'bitcoin',
  curve: 'secp256k1',
  derivationPath: (options) => params[networkOf(options)].path,
  deriveFromMnemonic(mnemonic, options) {
    const path = params[networkOf(options)].path;
    return keyFrom(deriveSecp256k1(mnemonic, path), path, options);
  },
  async deriveFromMnemonicAsync(mnemonic, options) {
    const path = params[networkOf(options)].path;
    return keyFrom(await deriveSecp256k1Async(mnemonic, path), path, options);
  },
  fromPrivateKey(encoded, options) {
    const key = decodePrivateKey(encoded, networkOf(options));
    if (!secp256k1.utils.isValidSecretKey(key))
      throw invalidPrivateKey('This is not a secp256k1 private key.');
    return keyFrom(key, null, options);
  },
  encodePrivateKey(privateKey, options) {
    const payload = new Uint8Array(34);
    payload[0] = params[networkOf(options)].wif;
    payload.set(privateKey, 1);
    payload[33] = 0x01;
    try {
      return base58check.encode(payload);
    } finally {
      wipe(payload);
    }
  },
  decodeSecret: (encoded, options) => decodePrivateKey(encoded, networkOf(options)),
  address: p2wpkhAddress,
  isValidAddress: isValidBitcoinAddress,
};
