import {
  createDecipheriv,
  createECDH,
  createHmac,
  createPublicKey,
  diffieHellman,
  ECDH,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import { describe, expect, it } from 'vitest';
import { type EncryptedExport, EXPORT_HPKE_INFO, encryptForRecipient } from '../src/wallets/export/index.js';

const SECRET = new TextEncoder().encode(
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
);
const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const unb64u = (s: string) => new Uint8Array(Buffer.from(s, 'base64url'));
const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);

// --- An independent RFC 9180 base-mode opener on node:crypto, for the test only. ---

type Recipient =
  | { kem: 'x25519'; privateKey: KeyObject; publicKey: Uint8Array }
  | { kem: 'p256'; ecdh: ReturnType<typeof createECDH>; publicKey: Uint8Array };

function x25519Recipient(): Recipient {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  return { kem: 'x25519', privateKey, publicKey: unb64u(publicKey.export({ format: 'jwk' }).x!) };
}

function p256Recipient(): Recipient & { kem: 'p256' } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { kem: 'p256', ecdh, publicKey: new Uint8Array(ecdh.getPublicKey()) };
}

const extract = (salt: Buffer, ikm: Buffer) => createHmac('sha256', salt).update(ikm).digest();
function expand(prk: Buffer, info: Buffer, length: number): Buffer {
  const blocks: Buffer[] = [];
  let t = Buffer.alloc(0);
  for (let i = 1; Buffer.concat(blocks).length < length; i++) {
    t = createHmac('sha256', prk)
      .update(Buffer.concat([t, info, Buffer.from([i])]))
      .digest();
    blocks.push(t);
  }
  return Buffer.concat(blocks).subarray(0, length);
}
const labeled = (suite: Buffer) => ({
  extract: (salt: Buffer, label: string, ikm: Buffer) =>
    extract(salt, Buffer.concat([Buffer.from('HPKE-v1'), suite, Buffer.from(label), ikm])),
  expand: (prk: Buffer, label: string, info: Buffer, length: number) =>
    expand(
      prk,
      Buffer.concat([u16(length), Buffer.from('HPKE-v1'), suite, Buffer.from(label), info]),
      length,
    ),
});

function decryptForTest(
  sealed: EncryptedExport,
  recipient: Recipient,
  info = EXPORT_HPKE_INFO,
  aad = Buffer.alloc(0),
) {
  const enc = Buffer.from(unb64u(sealed.encapsulated_key));
  const kemId = recipient.kem === 'x25519' ? 0x20 : 0x10;
  const dh =
    recipient.kem === 'x25519'
      ? diffieHellman({
          privateKey: recipient.privateKey,
          publicKey: createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: b64u(enc) }, format: 'jwk' }),
        })
      : recipient.ecdh.computeSecret(enc);
  const pkRm = recipient.kem === 'x25519' ? Buffer.from(recipient.publicKey) : recipient.ecdh.getPublicKey();
  const kem = labeled(Buffer.concat([Buffer.from('KEM'), u16(kemId)]));
  const shared = kem.expand(
    kem.extract(Buffer.alloc(0), 'eae_prk', dh),
    'shared_secret',
    Buffer.concat([enc, pkRm]),
    32,
  );
  const hpke = labeled(Buffer.concat([Buffer.from('HPKE'), u16(kemId), u16(1), u16(2)]));
  const context = Buffer.concat([
    Buffer.from([0]),
    hpke.extract(Buffer.alloc(0), 'psk_id_hash', Buffer.alloc(0)),
    hpke.extract(Buffer.alloc(0), 'info_hash', Buffer.from(info)),
  ]);
  const secret = hpke.extract(shared, 'secret', Buffer.alloc(0));
  const key = hpke.expand(secret, 'key', context, 32);
  const nonce = hpke.expand(secret, 'base_nonce', context, 12);
  const ct = unb64u(sealed.ciphertext);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(aad);
  decipher.setAuthTag(ct.subarray(ct.length - 16));
  return new Uint8Array(Buffer.concat([decipher.update(ct.subarray(0, ct.length - 16)), decipher.final()]));
}

// --- @hpke/core, a published RFC 9180 implementation on Web Crypto, as the second oracle. ---

const suites = {
  x25519: () =>
    new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() }),
  p256: () =>
    new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() }),
};

async function hpkeCoreRecipient(kem: 'x25519' | 'p256') {
  const suite = suites[kem]();
  const pair = await suite.kem.generateKeyPair();
  const publicKey = new Uint8Array(await suite.kem.serializePublicKey(pair.publicKey));
  const open = async (sealed: EncryptedExport, info = EXPORT_HPKE_INFO, aad = new Uint8Array(0)) =>
    new Uint8Array(
      await suite.open(
        {
          recipientKey: pair.privateKey,
          enc: unb64u(sealed.encapsulated_key).buffer as ArrayBuffer,
          info: new TextEncoder().encode(info).buffer as ArrayBuffer,
        },
        unb64u(sealed.ciphertext).buffer as ArrayBuffer,
        aad.buffer as ArrayBuffer,
      ),
    );
  return { publicKey, open };
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('encryptForRecipient', () => {
  it('X25519: @hpke/core and the node:crypto opener both recover the plaintext', async () => {
    const oracle = await hpkeCoreRecipient('x25519');
    const sealed = encryptForRecipient(SECRET, oracle.publicKey);
    expect(sealed.scheme).toBe('HPKE-Base-DHKEM(X25519-HKDF-SHA256)-HKDF-SHA256-AES256GCM');
    expect(unb64u(sealed.encapsulated_key)).toHaveLength(32);
    expect(text(await oracle.open(sealed))).toBe(text(SECRET));

    const recipient = x25519Recipient();
    expect(text(decryptForTest(encryptForRecipient(SECRET, recipient.publicKey), recipient))).toBe(
      text(SECRET),
    );
  });

  it('P-256, uncompressed and compressed recipient keys: both openers recover the plaintext', async () => {
    const oracle = await hpkeCoreRecipient('p256');
    expect(oracle.publicKey).toHaveLength(65);
    const sealed = encryptForRecipient(SECRET, oracle.publicKey);
    expect(sealed.scheme).toBe('HPKE-Base-DHKEM(P256-HKDF-SHA256)-HKDF-SHA256-AES256GCM');
    expect(unb64u(sealed.encapsulated_key)).toHaveLength(65);
    expect(text(await oracle.open(sealed))).toBe(text(SECRET));

    const recipient = p256Recipient();
    const compressed = new Uint8Array(recipient.ecdh.getPublicKey(null, 'compressed'));
    expect(compressed).toHaveLength(33);
    for (const publicKey of [recipient.publicKey, compressed]) {
      const out = encryptForRecipient(SECRET, publicKey);
      expect(text(decryptForTest(out, recipient))).toBe(text(SECRET));
    }
    // The KEM context holds the uncompressed key whatever form was given, so @hpke/core opens
    // what was sealed to the compressed form of its key.
    const oracleCompressed = new Uint8Array(
      ECDH.convertKey(
        Buffer.from(oracle.publicKey),
        'prime256v1',
        undefined,
        undefined,
        'compressed',
      ) as Buffer,
    );
    expect(oracleCompressed).toHaveLength(33);
    expect(text(await oracle.open(encryptForRecipient(SECRET, oracleCompressed)))).toBe(text(SECRET));
  });

  it('binds info and aad: a different value does not open', async () => {
    const oracle = await hpkeCoreRecipient('x25519');
    const aad = new TextEncoder().encode('wallet_123');
    const sealed = encryptForRecipient(SECRET, oracle.publicKey, { info: 'other-app/export', aad });
    expect(text(await oracle.open(sealed, 'other-app/export', aad))).toBe(text(SECRET));
    // WebCrypto's OperationError inside @hpke/core: the oracle refuses, it does not decrypt to something else.
    await expect(oracle.open(sealed)).rejects.toThrow('operation failed');
    await expect(oracle.open(sealed, 'other-app/export')).rejects.toThrow('operation failed');
  });

  it('another recipient key cannot decrypt', async () => {
    for (const kem of ['x25519', 'p256'] as const) {
      const intended = await hpkeCoreRecipient(kem);
      const intruder = await hpkeCoreRecipient(kem);
      const sealed = encryptForRecipient(SECRET, intended.publicKey);
      await expect(intruder.open(sealed)).rejects.toThrow('operation failed');
    }
    const intended = p256Recipient();
    const intruder = p256Recipient();
    expect(() => decryptForTest(encryptForRecipient(SECRET, intended.publicKey), intruder)).toThrow();
    const x1 = x25519Recipient();
    const x2 = x25519Recipient();
    expect(() => decryptForTest(encryptForRecipient(SECRET, x1.publicKey), x2)).toThrow();
  });

  it('the output never contains the plaintext, and each call uses a fresh ephemeral key', () => {
    const recipient = x25519Recipient();
    const a = encryptForRecipient(SECRET, recipient.publicKey);
    const b = encryptForRecipient(SECRET, recipient.publicKey);
    expect(a.encapsulated_key).not.toBe(b.encapsulated_key);
    expect(a.ciphertext).not.toBe(b.ciphertext);
    for (const out of [a, b]) {
      const ct = Buffer.from(unb64u(out.ciphertext));
      expect(ct.length).toBe(SECRET.length + 16);
      expect(ct.includes(Buffer.from(SECRET.subarray(0, 8)))).toBe(false);
      expect(JSON.stringify(out)).not.toContain('abandon');
      expect(JSON.stringify(out)).not.toContain(Buffer.from(SECRET).toString('base64url').slice(0, 12));
    }
  });

  it('uses the injected random source for the ephemeral key', () => {
    const recipient = x25519Recipient();
    const fixed = { bytes: (n: number) => new Uint8Array(n).fill(42) };
    const a = encryptForRecipient(SECRET, recipient.publicKey, { random: fixed });
    const b = encryptForRecipient(SECRET, recipient.publicKey, { random: fixed });
    expect(a).toEqual(b);
    expect(text(decryptForTest(a, recipient))).toBe(text(SECRET));
  });

  it('refuses recipient keys of the wrong length, off the curve, or of low order', () => {
    const bad = [
      new Uint8Array(0),
      new Uint8Array(31),
      new Uint8Array(64),
      new Uint8Array(65).fill(4), // not a P-256 point
      new Uint8Array([2, ...new Uint8Array(32).fill(0xff)]), // x ≥ p
      new Uint8Array(32), // X25519 zero point: all-zero shared secret
    ];
    for (const key of bad) {
      expect(() => encryptForRecipient(SECRET, key)).toThrow(
        expect.objectContaining({ errorType: 'invalid_recipient_key', field: 'recipient_public_key' }),
      );
    }
  });
});
