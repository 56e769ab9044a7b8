import { sha256 } from '@noble/hashes/sha2.js';
import { base64 } from '@scure/base';
import { utf8 } from '../crypto/encoding.js';
import { LatchkeyError } from '../errors.js';
import { ed25519Sign } from './ed25519-sign.js';

const SEP53_PREFIX = utf8('Stellar Signed Message:\n');

/** SEP-53: ed25519 over SHA-256("Stellar Signed Message:\n" ‖ message), base64. */
export async function signStellarMessage(message: Uint8Array, seed: Uint8Array): Promise<string> {
  const payload = new Uint8Array(SEP53_PREFIX.length + message.length);
  payload.set(SEP53_PREFIX);
  payload.set(message, SEP53_PREFIX.length);
  return base64.encode(await ed25519Sign(sha256(payload), seed));
}

// ---- transaction envelopes ----

export const STELLAR_PASSPHRASES = {
  mainnet: 'Public Global Stellar Network ; September 2015',
  testnet: 'Test SDF Network ; September 2015',
} as const;

const TX_FIELD = 'xlm_transaction.transaction';
const invalidEnvelope = (message: string, cause?: unknown) =>
  new LatchkeyError('invalid_transaction', message, { field: TX_FIELD, cause });

const ENVELOPE_TYPE_TX_V0 = 0;
const ENVELOPE_TYPE_TX = 2;
const ENVELOPE_TYPE_TX_FEE_BUMP = 5;
/** Stellar refuses envelopes with more signatures than this. */
const MAX_SIGNATURES = 20;
/** A DecoratedSignature: 4-byte hint, then opaque<64> (length word and 64 bytes). */
const DECORATED_SIGNATURE = 4 + 4 + 64;

export interface StellarEnvelope {
  bytes: Uint8Array;
  type: number;
  /** Where the transaction ends and the signature array (a count, then the signatures) begins. */
  signaturesAt: number;
  signatureCount: number;
}

const u32 = (bytes: Uint8Array, at: number) =>
  new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0, false);
const u32Bytes = (n: number) => {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n, false);
  return out;
};

/**
 * A TransactionEnvelope (XDR): its type and where its signatures start. Every envelope ends in
 * `DecoratedSignature signatures<20>`, so the split is found from the end: the one count n for
 * which the last 4 + 72n bytes are n well-formed signatures. The transaction before it is signed
 * as sent, byte for byte, and an envelope with no such split, or two, is refused.
 */
export function parseStellarEnvelope(text: string): StellarEnvelope {
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(text);
  } catch (cause) {
    throw invalidEnvelope('The transaction is not base64 XDR.', cause);
  }
  // Envelope type, then at least a source account, fee, sequence number and the arrays' counts.
  if (bytes.length < 4 + 52 || bytes.length % 4 !== 0)
    throw invalidEnvelope('This is not a Stellar transaction envelope.');
  const type = u32(bytes, 0);
  if (type !== ENVELOPE_TYPE_TX && type !== ENVELOPE_TYPE_TX_V0 && type !== ENVELOPE_TYPE_TX_FEE_BUMP)
    throw invalidEnvelope('This is not a Stellar transaction envelope.');
  const splits: number[] = [];
  for (let n = 0; n <= MAX_SIGNATURES; n++) {
    const at = bytes.length - 4 - n * DECORATED_SIGNATURE;
    if (at < 4 + 48) break;
    if (u32(bytes, at) !== n) continue;
    let ok = true;
    for (let i = 0; i < n && ok; i++) ok = u32(bytes, at + 4 + i * DECORATED_SIGNATURE + 4) === 64;
    if (ok) splits.push(n);
  }
  if (splits.length !== 1) throw invalidEnvelope('This is not a Stellar transaction envelope.');
  const signatureCount = splits[0]!;
  return {
    bytes,
    type,
    signaturesAt: bytes.length - 4 - signatureCount * DECORATED_SIGNATURE,
    signatureCount,
  };
}

/** SHA-256(network id ‖ tagged transaction): what every signer of the envelope signs. */
export function stellarTransactionHash(envelope: StellarEnvelope, passphrase: string): Uint8Array {
  const body = envelope.bytes.subarray(4, envelope.signaturesAt);
  // A v0 envelope is signed as the v1 transaction it converts to: its bare source key becomes a
  // MuxedAccount of KEY_TYPE_ED25519 (a zero word in front); the rest is byte-identical.
  const tagged =
    envelope.type === ENVELOPE_TYPE_TX_V0
      ? [u32Bytes(ENVELOPE_TYPE_TX), u32Bytes(0), body]
      : [u32Bytes(envelope.type), body];
  const parts = [sha256(utf8(passphrase)), ...tagged];
  const preimage = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    preimage.set(p, at);
    at += p.length;
  }
  return sha256(preimage);
}

/** The envelope with the wallet's DecoratedSignature appended; the signature base64 too. */
export async function signStellarEnvelope(
  envelope: StellarEnvelope,
  passphrase: string,
  seed: Uint8Array,
  publicKey: Uint8Array,
): Promise<{ signedEnvelope: string; signature: Uint8Array; hash: Uint8Array }> {
  if (envelope.signatureCount >= MAX_SIGNATURES)
    throw invalidEnvelope(`The envelope already has ${MAX_SIGNATURES} signatures.`);
  const hash = stellarTransactionHash(envelope, passphrase);
  const signature = await ed25519Sign(hash, seed);
  const { bytes, signaturesAt, signatureCount } = envelope;
  const out = new Uint8Array(bytes.length + DECORATED_SIGNATURE);
  out.set(bytes);
  out.set(u32Bytes(signatureCount + 1), signaturesAt);
  const tail = bytes.length;
  out.set(publicKey.subarray(28, 32), tail); // the hint: the key's last 4 bytes
  out.set(u32Bytes(64), tail + 4);
  out.set(signature, tail + 8);
  return { signedEnvelope: base64.encode(out), signature, hash };
}
