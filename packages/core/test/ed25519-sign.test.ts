import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { ed25519SigningKey, nobleKey, webCryptoKey } from '../src/chains/ed25519-sign.js';

const seedOf = (n: number) => new Uint8Array(32).fill(n);

describe('ed25519SigningKey', () => {
  it('signs as tweetnacl does, for a seed seen before and after another', async () => {
    const message = new TextEncoder().encode('Sign in to example.com');
    for (const n of [1, 2, 1, 3, 2]) {
      const seed = seedOf(n);
      const expected = nacl.sign.keyPair.fromSeed(seed);
      const key = await ed25519SigningKey(seed);
      seed.fill(0); // a caller wiping its copy changes nothing for the key it was given
      expect(key.publicKey).toEqual(expected.publicKey);
      await expect(key.sign(message)).resolves.toEqual(nacl.sign.detached(message, expected.secretKey));
      expect(nacl.sign.detached.verify(message, await key.sign(message), expected.publicKey)).toBe(true);
    }
  });

  it('imports a seed once while it is in use, and never answers one seed with another key', async () => {
    const [a, b] = [await ed25519SigningKey(seedOf(7)), await ed25519SigningKey(seedOf(8))];
    expect(await ed25519SigningKey(seedOf(7))).toBe(a);
    expect(await ed25519SigningKey(seedOf(8))).toBe(b);
    expect(a.publicKey).not.toEqual(b.publicKey);
  });

  it('signs as tweetnacl does on each fallback: Web Crypto and @noble', async () => {
    const message = new TextEncoder().encode('Sign in to example.com');
    for (const make of [webCryptoKey, nobleKey]) {
      const seed = seedOf(9);
      const expected = nacl.sign.keyPair.fromSeed(seed);
      const key = await make(seed);
      seed.fill(0);
      expect(key.publicKey).toEqual(expected.publicKey);
      await expect(key.sign(message)).resolves.toEqual(nacl.sign.detached(message, expected.secretKey));
    }
  });
});
