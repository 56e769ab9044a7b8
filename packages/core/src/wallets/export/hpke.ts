import { gcm } from '@noble/ciphers/aes.js';
import { x25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { expand, extract } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { utf8 } from '../../crypto/encoding.js';
import type { RandomSource } from '../../ports/random.js';

/**
 * RFC 9180 HPKE, base mode (no PSK, no sender key), single-shot seal (sequence number 0), with
 * KDF HKDF-SHA256 (0x0001) and AEAD AES-256-GCM (0x0002). The two KEMs are
 * DHKEM(P-256, HKDF-SHA256) (0x0010) and DHKEM(X25519, HKDF-SHA256) (0x0020).
 */
export type Kem = 'p256' | 'x25519';

const KEM_ID: Record<Kem, number> = { p256: 0x0010, x25519: 0x0020 };
const KDF_HKDF_SHA256 = 0x0001;
const AEAD_AES_256_GCM = 0x0002;
const MODE_BASE = 0x00;
const N_SECRET = 32;
const N_K = 32;
const N_N = 12;

const i2osp2 = (n: number) => new Uint8Array([n >> 8, n & 0xff]);
const HPKE_V1 = utf8('HPKE-v1');

const labeledExtract = (suiteId: Uint8Array, salt: Uint8Array, label: string, ikm: Uint8Array) =>
  extract(sha256, concatBytes(HPKE_V1, suiteId, utf8(label), ikm), salt);

const labeledExpand = (
  suiteId: Uint8Array,
  prk: Uint8Array,
  label: string,
  info: Uint8Array,
  length: number,
) => expand(sha256, prk, concatBytes(i2osp2(length), HPKE_V1, suiteId, utf8(label), info), length);

interface KemOps {
  /** SerializePublicKey of the recipient key (P-256: uncompressed SEC1, whatever form was given). */
  serializeRecipient(publicKey: Uint8Array): Uint8Array;
  /** A fresh ephemeral key pair, public half serialized. */
  ephemeral(random: RandomSource): { secretKey: Uint8Array; enc: Uint8Array };
  dh(secretKey: Uint8Array, publicKey: Uint8Array): Uint8Array;
}

const kems: Record<Kem, KemOps> = {
  p256: {
    serializeRecipient: (publicKey) => p256.Point.fromBytes(publicKey).toBytes(false),
    ephemeral(random) {
      const secretKey = p256.utils.randomSecretKey(random.bytes(p256.lengths.seed!));
      return { secretKey, enc: p256.getPublicKey(secretKey, false) };
    },
    // The DH value is the x-coordinate of the shared point.
    dh: (secretKey, publicKey) => p256.getSharedSecret(secretKey, publicKey, true).slice(1),
  },
  x25519: {
    serializeRecipient: (publicKey) => publicKey,
    ephemeral(random) {
      const secretKey = random.bytes(32);
      return { secretKey, enc: x25519.getPublicKey(secretKey) };
    },
    dh(secretKey, publicKey) {
      const shared = x25519.getSharedSecret(secretKey, publicKey);
      // RFC 9180 §7.1.4: a low-order recipient key gives an all-zero secret; refuse it.
      if (shared.every((b) => b === 0)) throw new Error('X25519 produced the all-zero value.');
      return shared;
    },
  },
};

/** SetupBaseS then one Seal: returns the encapsulated key and the ciphertext (with its 16-byte tag). */
export function hpkeSealBase(
  kem: Kem,
  recipientPublicKey: Uint8Array,
  info: Uint8Array,
  aad: Uint8Array,
  plaintext: Uint8Array,
  random: RandomSource,
): { enc: Uint8Array; ciphertext: Uint8Array } {
  const ops = kems[kem];
  const pkRm = ops.serializeRecipient(recipientPublicKey);
  const { secretKey, enc } = ops.ephemeral(random);

  // Encap: ExtractAndExpand(DH(skE, pkR), enc ‖ pkRm) under the KEM's own suite id.
  const kemSuite = concatBytes(utf8('KEM'), i2osp2(KEM_ID[kem]));
  const dh = ops.dh(secretKey, pkRm);
  secretKey.fill(0);
  const eaePrk = labeledExtract(kemSuite, new Uint8Array(0), 'eae_prk', dh);
  const sharedSecret = labeledExpand(kemSuite, eaePrk, 'shared_secret', concatBytes(enc, pkRm), N_SECRET);

  // KeySchedule, mode_base: empty psk and psk_id.
  const suite = concatBytes(
    utf8('HPKE'),
    i2osp2(KEM_ID[kem]),
    i2osp2(KDF_HKDF_SHA256),
    i2osp2(AEAD_AES_256_GCM),
  );
  const empty = new Uint8Array(0);
  const pskIdHash = labeledExtract(suite, empty, 'psk_id_hash', empty);
  const infoHash = labeledExtract(suite, empty, 'info_hash', info);
  const context = concatBytes(new Uint8Array([MODE_BASE]), pskIdHash, infoHash);
  const secret = labeledExtract(suite, sharedSecret, 'secret', empty);
  const key = labeledExpand(suite, secret, 'key', context, N_K);
  // Sequence number 0: the nonce is base_nonce itself.
  const nonce = labeledExpand(suite, secret, 'base_nonce', context, N_N);
  try {
    return { enc, ciphertext: gcm(key, nonce, aad).encrypt(plaintext) };
  } finally {
    for (const b of [dh, eaePrk, sharedSecret, secret, key, nonce]) b.fill(0);
  }
}
