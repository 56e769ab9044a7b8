import { entropyToMnemonic, mnemonicToEntropy, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { utf8 } from '../crypto/encoding.js';
import { pbkdf2Sha512 } from '../crypto/pbkdf2.js';
import { LatchkeyError } from '../errors.js';
import type { RandomSource } from '../ports/random.js';

const invalidMnemonic = () =>
  new LatchkeyError('invalid_mnemonic', 'The mnemonic is not a valid BIP39 English mnemonic.', {
    field: 'mnemonic',
  });

/** Single spaces and lower case, as wallet apps normalise what the user types, then checked. */
export function normalizeMnemonic(mnemonic: string): string {
  const normalized = mnemonic.trim().toLowerCase().split(/\s+/).join(' ');
  if (!validateMnemonic(normalized, wordlist)) throw invalidMnemonic();
  return normalized;
}

/** A new 12- or 24-word mnemonic from 128 or 256 bits of `random`. */
export function newMnemonic(random: RandomSource, words: 12 | 24 = 12): string {
  const entropy = random.bytes(words === 12 ? 16 : 32);
  try {
    return entropyToMnemonic(entropy, wordlist);
  } finally {
    entropy.fill(0);
  }
}

/**
 * The BIP39 entropy behind a mnemonic. Seal this (or the mnemonic), not the 64-byte BIP39 seed:
 * DOT keys are derived from the entropy, which the seed does not give back.
 */
export function entropyFromMnemonic(mnemonic: string): Uint8Array {
  return mnemonicToEntropy(normalizeMnemonic(mnemonic), wordlist);
}

export function mnemonicFromEntropy(entropy: Uint8Array): string {
  try {
    return entropyToMnemonic(entropy, wordlist);
  } catch (cause) {
    throw new LatchkeyError('invalid_field', 'BIP39 entropy is 16, 20, 24, 28 or 32 bytes.', {
      field: 'mnemonic',
      cause,
    });
  }
}

/** `bip39Seed` with the stretch on the platform's native PBKDF2: the same 64 bytes, much faster. */
export async function bip39SeedAsync(mnemonic: string): Promise<Uint8Array> {
  const sentence = normalizeMnemonic(mnemonic).normalize('NFKD');
  return pbkdf2Sha512(utf8(sentence), utf8('mnemonic'), 2048, 64);
}

/** The 64-byte BIP39 seed (PBKDF2-HMAC-SHA512, salt "mnemonic", empty passphrase). */
export function bip39Seed(mnemonic: string): Uint8Array {
  return mnemonicToSeedSync(normalizeMnemonic(mnemonic));
}
