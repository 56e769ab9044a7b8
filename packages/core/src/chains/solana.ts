import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { bytesEqual, invalidPrivateKey, wipe } from './bytes.js';
import { slip10Ed25519FromMnemonic, slip10Ed25519FromMnemonicAsync } from './slip10.js';
import type { ChainModule, DerivedKey } from './types.js';

// Phantom's and Solflare's default account (the Solana CLI's `--derivation-path` default too).
const PATH = "m/44'/501'/0'/0'";

function keyFrom(seed: Uint8Array, path: string | null): DerivedKey {
  const publicKey = ed25519.getPublicKey(seed);
  return { privateKey: seed, publicKey, address: base58.encode(publicKey), path };
}

/** The 64-byte secret key (seed ‖ public key) from base58 or the CLI's JSON byte array. */
function decodeSecretKey(encoded: string): Uint8Array | undefined {
  const s = encoded.trim();
  try {
    if (s.startsWith('[')) {
      const numbers: unknown = JSON.parse(s);
      if (!Array.isArray(numbers) || !numbers.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) {
        return undefined;
      }
      return Uint8Array.from(numbers as number[]);
    }
    return base58.decode(s);
  } catch {
    return undefined;
  }
}

export const solana: ChainModule = {
  walletType: 'solana',
  curve: 'ed25519',
  derivationPath: () => PATH,
  deriveFromMnemonic: (mnemonic) => keyFrom(slip10Ed25519FromMnemonic(mnemonic, PATH), PATH),
  deriveFromMnemonicAsync: async (mnemonic) =>
    keyFrom(await slip10Ed25519FromMnemonicAsync(mnemonic, PATH), PATH),
  fromPrivateKey(encoded) {
    const secret = decodeSecretKey(encoded);
    if (secret?.length !== 64) {
      wipe(secret);
      throw invalidPrivateKey('A solana private key is a 64-byte secret key in base58 or a JSON byte array.');
    }
    const key = keyFrom(secret.slice(0, 32), null);
    const matches = bytesEqual(key.publicKey, secret.subarray(32));
    wipe(secret);
    if (!matches) {
      wipe(key.privateKey);
      throw invalidPrivateKey('The solana secret key does not end with its own public key.');
    }
    return key;
  },
  encodePrivateKey(privateKey) {
    const secret = new Uint8Array(64);
    secret.set(privateKey);
    secret.set(ed25519.getPublicKey(privateKey), 32);
    try {
      return base58.encode(secret);
    } finally {
      wipe(secret);
    }
  },
  decodeSecret(encoded) {
    const secret = decodeSecretKey(encoded);
    if (secret?.length !== 64) throw invalidPrivateKey('A solana private key is a 64-byte secret key.');
    return secret;
  },
  address: (publicKey) => {
    if (publicKey.length !== 32) throw new Error('A solana public key is 32 bytes.');
    return base58.encode(publicKey);
  },
  // Program-derived addresses are off the curve, so only the length is checked.
  isValidAddress(address) {
    try {
      return base58.decode(address).length === 32;
    } catch {
      return false;
    }
  },
};
