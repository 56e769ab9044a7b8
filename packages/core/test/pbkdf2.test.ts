import { pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pbkdf2Sha512, webCryptoDerive } from '../src/crypto/pbkdf2.js';

describe('pbkdf2Sha512', () => {
  const password = new TextEncoder().encode(
    'legal winner thank year wave sausage worth useful legal winner thank yellow',
  );
  const salt = new TextEncoder().encode('mnemonicTREZOR');

  it('gives the BIP-39 stretch that node:crypto and Web Crypto give, many at once', async () => {
    const expected = new Uint8Array(pbkdf2Sync(password, salt, 2048, 64, 'sha512'));
    // The first BIP-39 test vector's seed (passphrase "TREZOR").
    expect(Buffer.from(expected).toString('hex')).toBe(
      '2e8905819b8723fe2c1d161860e5ee1830318dbf49a83bd451cfb8440c28bd6fa457fe1296106559a3c80937a1c1069be3a3a5bd381ee6260e8d9739fce1f607',
    );
    const all = await Promise.all(Array.from({ length: 8 }, () => pbkdf2Sha512(password, salt, 2048, 64)));
    for (const got of all) expect(got).toEqual(expected);
    await expect(webCryptoDerive(password, salt, 2048, 64)).resolves.toEqual(expected);
  });
});
