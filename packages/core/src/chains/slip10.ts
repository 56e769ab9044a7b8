import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { utf8 } from '../crypto/encoding.js';
import { wipe } from './bytes.js';
import { bip39Seed, bip39SeedAsync } from './mnemonic.js';

const HARDENED = 0x80000000;

/**
 * SLIP-0010 ed25519 derivation: the 32-byte private key (the ed25519 seed) at `path`. Ed25519
 * has no public derivation, so every step must be hardened (`44'` or `44H`).
 */
export function slip10Ed25519(seed: Uint8Array, path: string): Uint8Array {
  const segments = path.split('/');
  if (segments.shift() !== 'm') throw new Error(`SLIP-0010 path must start with m: ${path}`);
  let I = hmac(sha512, utf8('ed25519 seed'), seed);
  for (const segment of segments) {
    const match = /^(\d+)['hH]$/.exec(segment);
    const index = match ? Number(match[1]) : Number.NaN;
    if (!(index < HARDENED)) throw new Error(`SLIP-0010 ed25519 steps must be hardened: ${path}`);
    const data = new Uint8Array(37);
    data.set(I.subarray(0, 32), 1);
    new DataView(data.buffer).setUint32(33, index + HARDENED);
    const next = hmac(sha512, I.subarray(32), data);
    data.fill(0);
    I.fill(0);
    I = next;
  }
  const key = I.slice(0, 32);
  I.fill(0);
  return key;
}

/** The ed25519 seed a wallet app derives from a mnemonic along `path` (the BIP39 seed is wiped). */
export function slip10Ed25519FromMnemonic(mnemonic: string, path: string): Uint8Array {
  const seed = bip39Seed(mnemonic);
  try {
    return slip10Ed25519(seed, path);
  } finally {
    wipe(seed);
  }
}

/** `slip10Ed25519FromMnemonic` with the seed stretch on the platform's native PBKDF2. */
export async function slip10Ed25519FromMnemonicAsync(mnemonic: string, path: string): Promise<Uint8Array> {
  const seed = await bip39SeedAsync(mnemonic);
  try {
    return slip10Ed25519(seed, path);
  } finally {
    wipe(seed);
  }
}
