import { createHash, createHmac } from 'node:crypto';
import { Keyring } from '@polkadot/keyring';
import {
  cryptoWaitReady,
  decodeAddress,
  encodeAddress,
  mnemonicToMiniSecret,
  sr25519PairFromSeed,
} from '@polkadot/util-crypto';
import { HDKey } from '@scure/bip32';
import { Keypair } from '@solana/web3.js';
import { decodeBase58, encodeBase58, HDNodeWallet, Wallet } from 'ethers';
import nacl from 'tweetnacl';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  bip39SeedAsync,
  bitcoin,
  chainModules,
  entropyFromMnemonic,
  ethereum,
  ethereumAddressesEqual,
  isValidEthereumAddress,
  mnemonicFromEntropy,
  newMnemonic,
  normalizeMnemonic,
  polkadot,
  polkadotMiniSecret,
  polkadotMiniSecretAsync,
  slip10Ed25519,
  solana,
  stellar,
  strKeyDecode,
  strKeyEncode,
  strKeyVersion,
  toChecksumAddress,
  wipe,
} from '../src/chains/index.js';
import { secp256k1FromSeed } from '../src/chains/secp256k1-hd.js';

const ABANDON =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const ILLNESS = 'illness spike retreat truth genius clock brain pass fit cave bargain toe';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const fromHex = (s: string) => new Uint8Array(Buffer.from(s.replace(/^0x/, ''), 'hex'));

/** Deterministic "randomness" so the cross-checked mnemonics are the same on every run. */
const counterRandom = (start: number) => {
  let n = start;
  return {
    bytes: (len: number) => new Uint8Array(createHash('sha256').update(`r${n++}`).digest()).slice(0, len),
  };
};
const randomMnemonics = [
  newMnemonic(counterRandom(1)),
  newMnemonic(counterRandom(2), 24),
  newMnemonic(counterRandom(3)),
];

/**
 * SLIP-0010 ed25519, written again here from the spec with node:crypto, as the oracle for the
 * source's version.
 */
function oracleSlip10(seed: Uint8Array, indexes: number[]): Uint8Array {
  let I = createHmac('sha512', 'ed25519 seed').update(seed).digest();
  for (const index of indexes) {
    const ser = Buffer.alloc(4);
    ser.writeUInt32BE((index | 0x80000000) >>> 0);
    I = createHmac('sha512', I.subarray(32))
      .update(Buffer.concat([Buffer.from([0]), I.subarray(0, 32), ser]))
      .digest();
  }
  return new Uint8Array(I.subarray(0, 32));
}

const bip39SeedOracle = (mnemonic: string) =>
  fromHex(HDNodeWallet.fromPhrase(mnemonic).mnemonic!.computeSeed());

/** Bitcoin's base58check, with ethers' base58 and node's sha256. */
const oracleBase58check = (payload: Uint8Array) => {
  const sum = createHash('sha256')
    .update(createHash('sha256').update(payload).digest())
    .digest()
    .subarray(0, 4);
  return encodeBase58(Buffer.concat([payload, sum]));
};

const expectInvalidPrivateKey = (f: () => unknown) =>
  expect(f).toThrow(expect.objectContaining({ errorType: 'invalid_private_key', field: 'private_key' }));

describe('registry', () => {
  it('has one module per wallet type, each named for its type', () => {
    expect(Object.keys(chainModules).sort()).toEqual(['DOT', 'XLM', 'bitcoin', 'ethereum', 'solana']);
    for (const [type, module] of Object.entries(chainModules)) expect(module.walletType).toBe(type);
  });

  it('every module round-trips its own private key encoding', () => {
    for (const module of Object.values(chainModules)) {
      for (const network of ['mainnet', 'testnet'] as const) {
        const key = module.deriveFromMnemonic(ABANDON, { network });
        const again = module.fromPrivateKey(module.encodePrivateKey(key.privateKey, { network }), {
          network,
        });
        expect(again.address).toBe(key.address);
        expect(again.path).toBeNull();
        expect(hex(again.publicKey)).toBe(hex(key.publicKey));
        expect(module.address(key.publicKey, { network })).toBe(key.address);
        expect(module.isValidAddress(key.address, { network })).toBe(true);
        expect(module.derivationPath({ network })).toBe(key.path);
      }
    }
  });
});

describe('mnemonics', () => {
  it('refuses a phrase with a bad checksum or unknown words', () => {
    for (const bad of ['abandon '.repeat(12).trim(), 'hello world', `${ABANDON} about`]) {
      for (const module of Object.values(chainModules)) {
        expect(() => module.deriveFromMnemonic(bad)).toThrow(
          expect.objectContaining({ errorType: 'invalid_mnemonic', field: 'mnemonic' }),
        );
      }
    }
  });

  it('normalises spacing and case the way wallet apps do', () => {
    const messy = `  ${ABANDON.toUpperCase().replaceAll(' ', ' \n\t ')} `;
    expect(normalizeMnemonic(messy)).toBe(ABANDON);
    expect(ethereum.deriveFromMnemonic(messy).address).toBe(ethereum.deriveFromMnemonic(ABANDON).address);
  });

  it('stretches the seed on Web Crypto PBKDF2 to the same bytes: BIP39 vectors and every chain', async () => {
    // The BIP39 reference vector (TREZOR passphrase aside: Latchkey uses none), and the ethers oracle.
    const reference =
      '5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4';
    expect(hex(await bip39SeedAsync(ABANDON))).toBe(reference);
    for (const m of [ABANDON, ILLNESS, ...randomMnemonics]) {
      expect(hex(await bip39SeedAsync(m))).toBe(hex(bip39SeedOracle(m)));
      expect(hex(await polkadotMiniSecretAsync(m))).toBe(hex(polkadotMiniSecret(m)));
      for (const module of Object.values(chainModules)) {
        for (const network of ['mainnet', 'testnet'] as const) {
          const [sync, native] = [
            module.deriveFromMnemonic(m, { network }),
            await module.deriveFromMnemonicAsync(m, { network }),
          ];
          expect(native.address).toBe(sync.address);
          expect(hex(native.privateKey)).toBe(hex(sync.privateKey));
        }
      }
    }
  });

  it('makes 12 and 24 words from the random source, and entropy round-trips', () => {
    expect(randomMnemonics[0]!.split(' ')).toHaveLength(12);
    expect(randomMnemonics[1]!.split(' ')).toHaveLength(24);
    expect(newMnemonic(counterRandom(1))).toBe(randomMnemonics[0]);
    for (const m of randomMnemonics) expect(mnemonicFromEntropy(entropyFromMnemonic(m))).toBe(m);
    expect(hex(entropyFromMnemonic(ABANDON))).toBe('00000000000000000000000000000000');
  });
});

describe('BIP32', () => {
  it('derives what @scure/bip32 derives, hardened and normal steps alike', () => {
    const paths = [
      "m/44'/60'/0'/0/0",
      "m/84'/0'/0'/0/0",
      "m/84'/1'/0'/0/7",
      'm/0/1/2',
      "m/2147483647'/1",
      'm',
    ];
    for (const m of [ABANDON, ILLNESS, ...randomMnemonics]) {
      for (const path of paths) {
        const oracle = HDKey.fromMasterSeed(bip39SeedOracle(m)).derive(path).privateKey!;
        expect(hex(secp256k1FromSeed(bip39SeedOracle(m), path)), `${path}`).toBe(hex(oracle));
      }
    }
    expect(() => secp256k1FromSeed(bip39SeedOracle(ABANDON), "m/44'/x")).toThrow();
    expect(() => secp256k1FromSeed(bip39SeedOracle(ABANDON), "44'/0")).toThrow();
  });
});

describe('ethereum', () => {
  it("derives the published address of the abandon mnemonic at m/44'/60'/0'/0/0", () => {
    const key = ethereum.deriveFromMnemonic(ABANDON);
    expect(key.address).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    expect(key.path).toBe("m/44'/60'/0'/0/0");
  });

  it('matches ethers HDNodeWallet for other mnemonics', () => {
    for (const m of [ABANDON, ILLNESS, ...randomMnemonics]) {
      const oracle = HDNodeWallet.fromPhrase(m, undefined, "m/44'/60'/0'/0/0");
      const key = ethereum.deriveFromMnemonic(m);
      expect(key.address).toBe(oracle.address);
      expect(`0x${hex(key.privateKey)}`).toBe(oracle.privateKey);
    }
  });

  it('EIP-55: the spec examples round-trip from lower case', () => {
    for (const address of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(toChecksumAddress(address.toLowerCase())).toBe(address);
      expect(toChecksumAddress(`0x${address.slice(2).toUpperCase()}`)).toBe(address);
      expect(isValidEthereumAddress(address)).toBe(true);
      expect(isValidEthereumAddress(address.toLowerCase())).toBe(true);
    }
  });

  it('refuses a mixed-case address whose checksum is wrong, and malformed ones', () => {
    const good = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    const flipped = `${good.slice(0, 3)}A${good.slice(4)}`; // a → A
    expect(isValidEthereumAddress(flipped)).toBe(false);
    expect(isValidEthereumAddress(good.slice(0, 41))).toBe(false);
    expect(isValidEthereumAddress(good.slice(2))).toBe(false);
    expect(isValidEthereumAddress(`${good.slice(0, 41)}g`)).toBe(false);
  });

  it('compares addresses whatever their case, and never equal to an invalid one', () => {
    const a = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
    expect(ethereumAddressesEqual(a, a.toLowerCase())).toBe(true);
    expect(ethereumAddressesEqual(a.toLowerCase(), `0x${a.slice(2).toUpperCase()}`)).toBe(true);
    expect(ethereumAddressesEqual(a, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(false);
    const badChecksum = `0xFb${a.slice(4)}`;
    expect(ethereumAddressesEqual(a, badChecksum)).toBe(false);
  });

  it('imports a hex private key with or without 0x, as ethers does', () => {
    const oracle = Wallet.createRandom();
    expect(ethereum.fromPrivateKey(oracle.privateKey).address).toBe(oracle.address);
    expect(ethereum.fromPrivateKey(oracle.privateKey.slice(2)).address).toBe(oracle.address);
    expect(ethereum.encodePrivateKey(ethereum.fromPrivateKey(oracle.privateKey).privateKey)).toBe(
      oracle.privateKey,
    );
  });

  it('refuses keys that are not 32 bytes or not in the curve order', () => {
    const n = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
    for (const bad of [
      '',
      '0x',
      '0x1234',
      `0x${'00'.repeat(32)}`,
      `0x${n}`,
      `0x${'zz'.repeat(32)}`,
      `0x${'11'.repeat(33)}`,
    ]) {
      expectInvalidPrivateKey(() => ethereum.fromPrivateKey(bad));
    }
  });
});

describe('bitcoin', () => {
  it('derives the BIP84 test vectors (m/84h/0h/0h/0/0 and m/84h/1h/0h/0/0)', () => {
    const main = bitcoin.deriveFromMnemonic(ABANDON);
    expect(main.address).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(main.path).toBe("m/84'/0'/0'/0/0");
    const test = bitcoin.deriveFromMnemonic(ABANDON, { network: 'testnet' });
    expect(test.address).toBe('tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl');
    expect(test.path).toBe("m/84'/1'/0'/0/0");
  });

  it('derives the same private key as an independent BIP32 implementation', () => {
    for (const m of [ABANDON, ...randomMnemonics]) {
      const oracle = HDNodeWallet.fromPhrase(m, undefined, "m/84'/0'/0'/0/0");
      expect(`0x${hex(bitcoin.deriveFromMnemonic(m).privateKey)}`).toBe(oracle.privateKey);
      expect(hex(bitcoin.deriveFromMnemonic(m).publicKey)).toBe(oracle.publicKey.slice(2)); // compressed
    }
  });

  it('exports compressed WIF with the network byte, as base58check computed independently', () => {
    const key = bitcoin.deriveFromMnemonic(ABANDON);
    const payload = (version: number) => new Uint8Array([version, ...key.privateKey, 0x01]);
    expect(bitcoin.encodePrivateKey(key.privateKey)).toBe(oracleBase58check(payload(0x80)));
    expect(bitcoin.encodePrivateKey(key.privateKey, { network: 'testnet' })).toBe(
      oracleBase58check(payload(0xef)),
    );
    expect(
      bitcoin.encodePrivateKey(key.privateKey).startsWith('K') ||
        bitcoin.encodePrivateKey(key.privateKey).startsWith('L'),
    ).toBe(true);
  });

  it('imports WIF or hex, and checks the WIF network byte', () => {
    const key = bitcoin.deriveFromMnemonic(ABANDON);
    const testKey = bitcoin.deriveFromMnemonic(ABANDON, { network: 'testnet' });
    const mainWif = bitcoin.encodePrivateKey(key.privateKey);
    const testWif = bitcoin.encodePrivateKey(testKey.privateKey, { network: 'testnet' });
    expect(bitcoin.fromPrivateKey(mainWif).address).toBe(key.address);
    expect(bitcoin.fromPrivateKey(hex(key.privateKey)).address).toBe(key.address);
    expect(bitcoin.fromPrivateKey(`0x${hex(testKey.privateKey)}`, { network: 'testnet' }).address).toBe(
      'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl',
    );
    expect(bitcoin.fromPrivateKey(testWif, { network: 'testnet' }).address).toBe(
      'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl',
    );
    // Electrum's export form names the script type.
    expect(bitcoin.fromPrivateKey(`p2wpkh:${mainWif}`).address).toBe(key.address);
    expectInvalidPrivateKey(() => bitcoin.fromPrivateKey(`p2pkh:${mainWif}`));
    expectInvalidPrivateKey(() => bitcoin.fromPrivateKey(`p2wpkh-p2sh:${mainWif}`));
    expectInvalidPrivateKey(() => bitcoin.fromPrivateKey(testWif));
    expectInvalidPrivateKey(() => bitcoin.fromPrivateKey(mainWif, { network: 'testnet' }));
  });

  it('refuses uncompressed WIF, a bad checksum and junk', () => {
    const key = bitcoin.deriveFromMnemonic(ABANDON);
    const uncompressed = oracleBase58check(new Uint8Array([0x80, ...key.privateKey]));
    expectInvalidPrivateKey(() => bitcoin.fromPrivateKey(uncompressed));
    const wif = bitcoin.encodePrivateKey(key.privateKey);
    const tampered = `${wif.slice(0, 10)}${wif[10] === 'a' ? 'b' : 'a'}${wif.slice(11)}`;
    expectInvalidPrivateKey(() => bitcoin.fromPrivateKey(tampered));
    expectInvalidPrivateKey(() => bitcoin.fromPrivateKey('not a key'));
    expectInvalidPrivateKey(() =>
      bitcoin.fromPrivateKey(oracleBase58check(new Uint8Array([0x80, ...new Uint8Array(32), 1]))),
    );
  });

  it('validates addresses per network: segwit v0, taproot, legacy base58', () => {
    expect(bitcoin.isValidAddress('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu')).toBe(true);
    expect(bitcoin.isValidAddress('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', { network: 'testnet' })).toBe(
      false,
    );
    expect(bitcoin.isValidAddress('tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl')).toBe(false);
    expect(bitcoin.isValidAddress('tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', { network: 'testnet' })).toBe(
      true,
    );
    expect(bitcoin.isValidAddress('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv')).toBe(false); // checksum
    expect(bitcoin.isValidAddress('')).toBe(false);
    // Legacy P2PKH and P2SH built here from a hash160 with the oracle's base58check.
    const h160 = new Uint8Array(20).fill(7);
    expect(bitcoin.isValidAddress(oracleBase58check(new Uint8Array([0x00, ...h160])))).toBe(true);
    expect(bitcoin.isValidAddress(oracleBase58check(new Uint8Array([0x05, ...h160])))).toBe(true);
    expect(bitcoin.isValidAddress(oracleBase58check(new Uint8Array([0x6f, ...h160])))).toBe(false);
    expect(
      bitcoin.isValidAddress(oracleBase58check(new Uint8Array([0x6f, ...h160])), { network: 'testnet' }),
    ).toBe(true);
    expect(bitcoin.isValidAddress(oracleBase58check(new Uint8Array([0x30, ...h160])))).toBe(false);
  });
});

describe('SLIP-0010 ed25519', () => {
  const seed = fromHex('000102030405060708090a0b0c0d0e0f');

  it('test vector 1, m/0H: the published private key', () => {
    // Only the private key is asserted literally; the public key is whatever tweetnacl makes of it
    // (the chain modules' public keys are checked against tweetnacl and Keypair.fromSeed below).
    const key = slip10Ed25519(seed, "m/0'");
    expect(hex(key)).toBe('68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3');
    expect(hex(key)).toBe(hex(oracleSlip10(seed, [0])));
  });

  it('matches the independent implementation on deeper paths and in H notation', () => {
    expect(hex(slip10Ed25519(seed, 'm/0H/1H/2H/2H/1000000000H'))).toBe(
      hex(oracleSlip10(seed, [0, 1, 2, 2, 1000000000])),
    );
    expect(hex(slip10Ed25519(seed, 'm'))).toBe(hex(oracleSlip10(seed, [])));
  });

  it('refuses non-hardened steps, which ed25519 cannot derive', () => {
    expect(() => slip10Ed25519(seed, "m/44'/0")).toThrow();
    expect(() => slip10Ed25519(seed, `m/${2 ** 31}'`)).toThrow();
    expect(() => slip10Ed25519(seed, "44'/0'")).toThrow();
  });
});

describe('solana', () => {
  it("derives m/44'/501'/0'/0' as Keypair.fromSeed on an independent SLIP-0010 key", () => {
    for (const m of [ABANDON, ILLNESS, ...randomMnemonics]) {
      const oracle = Keypair.fromSeed(oracleSlip10(bip39SeedOracle(m), [44, 501, 0, 0]));
      const key = solana.deriveFromMnemonic(m);
      expect(key.address).toBe(oracle.publicKey.toBase58());
      expect(key.path).toBe("m/44'/501'/0'/0'");
      // Phantom's "export private key": base58 of the 64-byte secret key.
      expect(solana.encodePrivateKey(key.privateKey)).toBe(encodeBase58(oracle.secretKey));
    }
  });

  it('imports base58 and the CLI JSON array form of a 64-byte secret key', () => {
    const oracle = Keypair.fromSeed(new Uint8Array(32).fill(9));
    expect(solana.fromPrivateKey(encodeBase58(oracle.secretKey)).address).toBe(oracle.publicKey.toBase58());
    expect(solana.fromPrivateKey(JSON.stringify(Array.from(oracle.secretKey))).address).toBe(
      oracle.publicKey.toBase58(),
    );
  });

  it('refuses a secret key whose public half is not its own, and wrong lengths', () => {
    const a = Keypair.fromSeed(new Uint8Array(32).fill(1));
    const b = Keypair.fromSeed(new Uint8Array(32).fill(2));
    const mixed = new Uint8Array([...a.secretKey.subarray(0, 32), ...b.publicKey.toBytes()]);
    expectInvalidPrivateKey(() => solana.fromPrivateKey(encodeBase58(mixed)));
    expectInvalidPrivateKey(() => solana.fromPrivateKey(encodeBase58(a.secretKey.subarray(0, 32))));
    expectInvalidPrivateKey(() => solana.fromPrivateKey('0OIl'));
    expectInvalidPrivateKey(() => solana.fromPrivateKey('[1,2,300]'));
  });

  it('accepts any 32-byte base58 address, including off-curve program addresses', () => {
    expect(solana.isValidAddress(Keypair.generate().publicKey.toBase58())).toBe(true);
    expect(solana.isValidAddress('11111111111111111111111111111111')).toBe(true); // system program
    expect(solana.isValidAddress(encodeBase58(new Uint8Array(33).fill(1)))).toBe(false);
    expect(solana.isValidAddress('0x00')).toBe(false);
  });
});

describe('XLM', () => {
  it("SEP-0005 test 1 and test 5 at m/44'/148'/0'", () => {
    expect(stellar.deriveFromMnemonic(ILLNESS).address).toBe(
      'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6',
    );
    const key = stellar.deriveFromMnemonic(ABANDON);
    expect(key.address).toBe('GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX');
    expect(key.path).toBe("m/44'/148'/0'");
  });

  it('derives the independent SLIP-0010 key and its ed25519 public key', () => {
    for (const m of [ILLNESS, ...randomMnemonics]) {
      const seed = oracleSlip10(bip39SeedOracle(m), [44, 148, 0]);
      const key = stellar.deriveFromMnemonic(m);
      expect(hex(key.privateKey)).toBe(hex(seed));
      expect(hex(key.publicKey)).toBe(hex(nacl.sign.keyPair.fromSeed(seed).publicKey));
    }
  });

  it('StrKey round-trips, rejects a bad checksum, a wrong version and a wrong length', () => {
    const payload = new Uint8Array(32).map((_, i) => i * 7);
    const g = strKeyEncode(strKeyVersion.publicKey, payload);
    const s = strKeyEncode(strKeyVersion.secretSeed, payload);
    expect(g).toMatch(/^G[A-Z2-7]{55}$/);
    expect(s).toMatch(/^S[A-Z2-7]{55}$/);
    expect(hex(strKeyDecode(strKeyVersion.publicKey, g)!)).toBe(hex(payload));
    expect(hex(strKeyDecode(strKeyVersion.secretSeed, s)!)).toBe(hex(payload));
    const tampered = `${g.slice(0, 20)}${g[20] === 'A' ? 'B' : 'A'}${g.slice(21)}`;
    expect(strKeyDecode(strKeyVersion.publicKey, tampered)).toBeUndefined();
    expect(strKeyDecode(strKeyVersion.publicKey, s)).toBeUndefined();
    expect(strKeyDecode(strKeyVersion.publicKey, g.slice(0, 55))).toBeUndefined();
    const published = 'GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX';
    expect(stellar.isValidAddress(published)).toBe(true);
    expect(stellar.isValidAddress(`${published.slice(0, 55)}A`)).toBe(false);
    expect(stellar.isValidAddress(s)).toBe(false);
  });

  it('imports and exports the S… secret seed; refuses a G… address as a key', () => {
    const key = stellar.deriveFromMnemonic(ABANDON);
    const secret = stellar.encodePrivateKey(key.privateKey);
    expect(secret).toMatch(/^S/);
    expect(stellar.fromPrivateKey(secret).address).toBe(key.address);
    expectInvalidPrivateKey(() => stellar.fromPrivateKey(key.address));
    expectInvalidPrivateKey(() =>
      stellar.fromPrivateKey(`${secret.slice(0, 55)}${secret[55] === 'A' ? 'B' : 'A'}`),
    );
  });
});

describe('DOT', () => {
  beforeAll(async () => {
    await cryptoWaitReady();
  });

  it('derives the address polkadot.js gives for the mnemonic (sr25519, SS58 prefix 0)', () => {
    const keyring = new Keyring({ type: 'sr25519', ss58Format: 0 });
    for (const m of [ABANDON, ILLNESS, ...randomMnemonics]) {
      const oracle = keyring.addFromUri(m);
      const key = polkadot.deriveFromMnemonic(m);
      expect(key.address).toBe(oracle.address);
      expect(hex(key.publicKey)).toBe(hex(oracle.publicKey));
      expect(hex(key.privateKey)).toBe(hex(mnemonicToMiniSecret(m)));
      expect(key.address.startsWith('1')).toBe(true);
    }
  });

  it('imports the 0x mini-secret and the 64-byte sr25519 secret key polkadot.js holds', () => {
    const m = randomMnemonics[0]!;
    const miniSecret = mnemonicToMiniSecret(m);
    const pair = sr25519PairFromSeed(miniSecret);
    const expected = encodeAddress(pair.publicKey, 0);
    expect(polkadot.fromPrivateKey(`0x${hex(miniSecret)}`).address).toBe(expected);
    const fromSecret = polkadot.fromPrivateKey(`0x${hex(pair.secretKey)}`);
    expect(fromSecret.address).toBe(expected);
    expect(polkadot.encodePrivateKey(fromSecret.privateKey)).toBe(`0x${hex(pair.secretKey)}`);
    expectInvalidPrivateKey(() => polkadot.fromPrivateKey('0x1234'));
    expectInvalidPrivateKey(() => polkadot.fromPrivateKey(m));
  });

  it('validates SS58 as polkadot.js encodes it; refuses other prefixes and bad checksums', () => {
    const publicKey = polkadot.deriveFromMnemonic(ABANDON).publicKey;
    const address = encodeAddress(publicKey, 0);
    expect(polkadot.address(publicKey)).toBe(address);
    expect(hex(decodeAddress(polkadot.address(publicKey)))).toBe(hex(publicKey));
    expect(polkadot.isValidAddress(address)).toBe(true);
    expect(polkadot.isValidAddress(encodeAddress(publicKey, 42))).toBe(false);
    expect(polkadot.isValidAddress(encodeAddress(publicKey, 2))).toBe(false);
    const raw = decodeBase58(address);
    const bytes = fromHex(raw.toString(16).padStart(70, '0'));
    bytes[34] = bytes[34]! ^ 1;
    expect(polkadot.isValidAddress(encodeBase58(bytes))).toBe(false);
  });
});

describe('wipe', () => {
  it('zeroes every array given and skips missing ones', () => {
    const a = new Uint8Array([1, 2, 3]);
    const b = new Uint8Array([4]);
    wipe(a, undefined, b, null);
    expect([...a, ...b]).toEqual([0, 0, 0, 0]);
  });
});
