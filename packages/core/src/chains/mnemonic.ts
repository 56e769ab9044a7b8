import { sha256 } from '@noble/hashes/sha2.js';
import { mnemonicToSeedSync } from '@scure/bip39';
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
  const entropy = wordsToEntropy(normalized);
  if (!entropy) throw invalidMnemonic();
  entropy.fill(0);
  return normalized;
}

/**
 * Each English word's index, built once. (@scure/bip39 checks its whole word list, 2,048
 * strings, on every call: most of what a wallet's creation spent outside the seed stretch and
 * the curve.)
 */
let indexOfWord: Map<string, number> | undefined;
const wordIndex = () => (indexOfWord ??= new Map(wordlist.map((word, i) => [word, i])));

/** BIP-39: the checksum is the first ENT/32 bits of SHA-256(entropy), at most one byte's worth. */
const checksumOf = (entropy: Uint8Array) => {
  const unused = 8 - entropy.length / 4;
  return (sha256(entropy)[0]! >> unused) << unused;
};

/** BIP-39 words of 16, 20, 24, 28 or 32 bytes: entropy ‖ checksum, 11 bits a word. */
function entropyToWords(entropy: Uint8Array): string {
  if (![16, 20, 24, 28, 32].includes(entropy.length)) throw new Error('BIP39 entropy length.');
  const data = new Uint8Array(entropy.length + 1);
  data.set(entropy);
  data[entropy.length] = checksumOf(entropy);
  const count = (entropy.length * 3) / 4;
  const words: string[] = [];
  for (let w = 0; w < count; w++) {
    let index = 0;
    for (let b = 0; b < 11; b++) {
      const bit = w * 11 + b;
      index = (index << 1) | ((data[bit >> 3]! >> (7 - (bit & 7))) & 1);
    }
    words.push(wordlist[index]!);
  }
  data.fill(0);
  return words.join(' ');
}

/** The entropy of single-space-separated English words, or undefined if they are not a valid mnemonic. */
function wordsToEntropy(mnemonic: string): Uint8Array | undefined {
  const words = mnemonic.normalize('NFKD').split(' ');
  if (![12, 15, 18, 21, 24].includes(words.length)) return undefined;
  const bytes = (words.length * 4) / 3;
  const data = new Uint8Array(bytes + 1);
  const index = wordIndex();
  for (let w = 0; w < words.length; w++) {
    const at = index.get(words[w]!);
    if (at === undefined) return undefined;
    for (let b = 0; b < 11; b++) {
      const bit = w * 11 + b;
      if ((at >> (10 - b)) & 1) data[bit >> 3]! |= 0x80 >> (bit & 7);
    }
  }
  const entropy = data.slice(0, bytes);
  const valid = data[bytes] === checksumOf(entropy);
  data.fill(0);
  if (valid) return entropy;
  entropy.fill(0);
  return undefined;
}

/** A new 12- or 24-word mnemonic from 128 or 256 bits of `random`. */
export function newMnemonic(random: RandomSource, words: 12 | 24 = 12): string {
  const entropy = random.bytes(words === 12 ? 16 : 32);
  try {
    return entropyToWords(entropy);
  } finally {
    entropy.fill(0);
  }
}

/**
 * The BIP39 entropy behind a mnemonic. Seal this (or the mnemonic), not the 64-byte BIP39 seed:
 * DOT keys are derived from the entropy, which the seed does not give back.
 */
export function entropyFromMnemonic(mnemonic: string): Uint8Array {
  const entropy = wordsToEntropy(mnemonic.trim().toLowerCase().split(/\s+/).join(' '));
  if (!entropy) throw invalidMnemonic();
  return entropy;
}

export function mnemonicFromEntropy(entropy: Uint8Array): string {
  try {
    return entropyToWords(entropy);
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
