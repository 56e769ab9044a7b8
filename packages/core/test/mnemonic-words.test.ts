import { randomBytes } from 'node:crypto';
import { entropyToMnemonic, mnemonicToEntropy, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { describe, expect, it } from 'vitest';
import { entropyFromMnemonic, mnemonicFromEntropy, normalizeMnemonic } from '../src/chains/mnemonic.js';

describe('BIP-39 words (checked against @scure/bip39)', () => {
  it('gives the same words and entropy for every length, and takes them back', () => {
    for (const length of [16, 20, 24, 28, 32]) {
      for (let i = 0; i < 50; i++) {
        const entropy = new Uint8Array(randomBytes(length));
        const words = mnemonicFromEntropy(entropy);
        expect(words).toBe(entropyToMnemonic(entropy, wordlist));
        expect(entropyFromMnemonic(words)).toEqual(entropy);
        expect(normalizeMnemonic(`  ${words.toUpperCase().replace(/ /g, '  \n')} `)).toBe(words);
      }
    }
    const allOnes = new Uint8Array(32).fill(0xff);
    expect(mnemonicFromEntropy(allOnes)).toBe(entropyToMnemonic(allOnes, wordlist));
  });

  it('refuses what @scure/bip39 refuses: a wrong checksum, an unknown word, a wrong count', () => {
    const words = entropyToMnemonic(new Uint8Array(16).fill(7), wordlist).split(' ');
    const cases = [
      // Another last word changes the checksum bits (most of them are invalid).
      ...wordlist.slice(0, 40).map((w) => [...words.slice(0, 11), w].join(' ')),
      [...words.slice(0, 11), 'notaword'].join(' '),
      words.slice(0, 11).join(' '),
      [...words, 'abandon'].join(' '),
      '',
    ];
    for (const mnemonic of cases) {
      const valid = validateMnemonic(mnemonic, wordlist);
      if (valid) {
        expect(normalizeMnemonic(mnemonic)).toBe(mnemonic);
        expect(entropyFromMnemonic(mnemonic)).toEqual(mnemonicToEntropy(mnemonic, wordlist));
      } else {
        expect(() => normalizeMnemonic(mnemonic)).toThrow(/valid BIP39/);
        expect(() => entropyFromMnemonic(mnemonic)).toThrow(/valid BIP39/);
      }
    }
    expect(() => mnemonicFromEntropy(new Uint8Array(15))).toThrow();
  });
});
