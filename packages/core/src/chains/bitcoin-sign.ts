import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { base64, bech32, hex } from '@scure/base';
import { NETWORK, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { utf8 } from '../crypto/encoding.js';
import { LatchkeyError } from '../errors.js';
import { bytesEqual } from './bytes.js';
import { psbtCounts } from './psbt-counts.js';
import { secp256k1PublicKey } from './secp256k1-public.js';
import type { Network } from './types.js';

const sha256d = (bytes: Uint8Array) => sha256(sha256(bytes));

// A compressed key is hashed as it is; another form is compressed first (a curve point decode).
const hash160 = (publicKey: Uint8Array) =>
  ripemd160(sha256(publicKey.length === 33 ? publicKey : secp256k1.Point.fromBytes(publicKey).toBytes(true)));

/** OP_0 PUSH20 key hash: the output script of a P2WPKH (bech32, segwit v0) address. */
export function p2wpkhScriptOf(address: string): Uint8Array {
  const { words } = bech32.decode(address as `${string}1${string}`);
  const program = bech32.fromWords(words.slice(1));
  if (words[0] !== 0 || program.length !== 20) throw new Error('Not a P2WPKH address.');
  return concatBytes(Uint8Array.of(0x00, 0x14), program);
}

/** How many signing keys' public keys are remembered (public data; the secret is not kept). */
const PUBLIC_KEYS_MAX = 1024;
const publicKeys = new Map<string, Uint8Array>();

/**
 * The compressed public key of a signing key, remembered by SHA-256 of the secret: a BIP-322
 * witness carries it, and computing it is a curve multiplication, as costly as the signature.
 */
function signingPublicKey(privateKey: Uint8Array): Uint8Array {
  const id = hex.encode(sha256(privateKey));
  const hit = publicKeys.get(id);
  if (hit) return hit;
  const publicKey = secp256k1PublicKey(privateKey, true);
  if (publicKeys.size >= PUBLIC_KEYS_MAX) publicKeys.delete(publicKeys.keys().next().value!);
  publicKeys.set(id, publicKey);
  return publicKey;
}

const BIP322_TAG = sha256(utf8('BIP0322-signed-message'));
const ZERO4 = new Uint8Array(4);
const ZERO8 = new Uint8Array(8);

/**
 * BIP-322 "simple" signature of a message by a P2WPKH key: the witness of the virtual `to_sign`
 * transaction spending the virtual `to_spend` one, base64 of its serialization. Both virtual
 * transactions are fixed by BIP-322 but for the message hash and the address's script, so the
 * BIP-143 signature hash is assembled directly here.
 */
export function signBitcoinMessage(message: Uint8Array, privateKey: Uint8Array): string {
  const publicKey = signingPublicKey(privateKey);
  const pkh = hash160(publicKey);
  const messageHash = sha256(concatBytes(BIP322_TAG, BIP322_TAG, message));
  const toSpend = concatBytes(
    ZERO4, // version 0
    Uint8Array.of(1), // one input: 0000…00:0xFFFFFFFF, scriptSig OP_0 PUSH32 message hash, sequence 0
    new Uint8Array(32),
    Uint8Array.of(0xff, 0xff, 0xff, 0xff),
    Uint8Array.of(34, 0x00, 0x20),
    messageHash,
    ZERO4,
    Uint8Array.of(1), // one output of 0 paying the address
    ZERO8,
    Uint8Array.of(22, 0x00, 0x14),
    pkh,
    ZERO4, // lock time 0
  );
  const outpoint = concatBytes(sha256d(toSpend), ZERO4);
  const sighash = sha256d(
    concatBytes(
      ZERO4, // to_sign version 0
      sha256d(outpoint), // hashPrevouts
      sha256d(ZERO4), // hashSequence
      outpoint,
      Uint8Array.of(0x19, 0x76, 0xa9, 0x14), // scriptCode of P2WPKH: P2PKH of the key hash
      pkh,
      Uint8Array.of(0x88, 0xac),
      ZERO8, // the amount spent: 0
      ZERO4, // sequence 0
      sha256d(concatBytes(ZERO8, Uint8Array.of(1, 0x6a))), // hashOutputs: one OP_RETURN of 0
      ZERO4, // lock time 0
      Uint8Array.of(1, 0, 0, 0), // SIGHASH_ALL
    ),
  );
  const der = secp256k1.sign(sighash, privateKey, { prehash: false, lowS: true, format: 'der' });
  const witness = concatBytes(
    Uint8Array.of(2, der.length + 1),
    der,
    Uint8Array.of(0x01),
    Uint8Array.of(publicKey.length),
    publicKey,
  );
  return base64.encode(witness);
}

// ---- PSBTs ----

const PSBT_FIELD = 'btc_psbt.psbt';
const invalidPsbt = (message: string, cause?: unknown) =>
  new LatchkeyError('invalid_transaction', message, { field: PSBT_FIELD, cause });
const networkParams = (network: Network) => (network === 'testnet' ? TEST_NETWORK : NETWORK);

export interface ParsedPsbt {
  tx: Transaction;
  /** The inputs whose previous output pays the wallet's address: the ones it signs. */
  ownInputs: number[];
  /** Every output, with its address when its script has one. */
  outputs: { address?: string; value: bigint }[];
}

/**
 * The most inputs and outputs a PSBT may have. Parsing costs about a tenth of a millisecond per
 * input and output, and signing several milliseconds per input of the wallet's (the library
 * re-encodes the transaction for each): thousands of inputs fit in a body and would cost
 * minutes. Payments from an embedded wallet spend a few inputs.
 */
export const PSBT_LIMITS = { inputs: 64, outputs: 256 } as const;

const overLimits = (counts: { inputs: number; outputs: number }) =>
  counts.inputs > PSBT_LIMITS.inputs || counts.outputs > PSBT_LIMITS.outputs;

const tooLarge = () =>
  invalidPsbt(`A PSBT has at most ${PSBT_LIMITS.inputs} inputs and ${PSBT_LIMITS.outputs} outputs.`);

/** A BIP-174 PSBT (base64), with the inputs this wallet owns and what it pays; no key needed. */
export function parsePsbt(text: string, walletAddress: string, network: Network): ParsedPsbt {
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(text);
  } catch (cause) {
    throw invalidPsbt('This is not a base64 PSBT (BIP-174).', cause);
  }
  // Counted before the full parse, whose cost grows with them.
  const declared = psbtCounts(bytes);
  if (declared && overLimits(declared)) throw tooLarge();
  let tx: Transaction;
  try {
    tx = Transaction.fromPSBT(bytes);
  } catch (cause) {
    throw invalidPsbt('This is not a base64 PSBT (BIP-174).', cause);
  }
  if (tx.inputsLength === 0 || tx.outputsLength === 0)
    throw invalidPsbt('The PSBT has no inputs or no outputs.');
  if (overLimits({ inputs: tx.inputsLength, outputs: tx.outputsLength })) throw tooLarge();
  const own = p2wpkhScriptOf(walletAddress);
  const ownInputs: number[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    const script =
      input.witnessUtxo?.script ??
      (input.index !== undefined ? input.nonWitnessUtxo?.outputs[input.index]?.script : undefined);
    if (script && bytesEqual(script, own)) ownInputs.push(i);
  }
  const outputs: ParsedPsbt['outputs'] = [];
  for (let i = 0; i < tx.outputsLength; i++) {
    const output = tx.getOutput(i);
    if (output.amount === undefined) throw invalidPsbt(`Output ${i} has no amount.`);
    let address: string | undefined;
    try {
      address = tx.getOutputAddress(i, networkParams(network));
    } catch {
      address = undefined;
    }
    outputs.push(address === undefined ? { value: output.amount } : { address, value: output.amount });
  }
  return { tx, ownInputs, outputs };
}

/** Signs the wallet's inputs (SIGHASH_ALL); the PSBT comes back unfinalised, base64, for other signers or to finalise. */
export function signPsbt(parsed: ParsedPsbt, privateKey: Uint8Array): string {
  for (const i of parsed.ownInputs) {
    let signed: boolean;
    try {
      signed = parsed.tx.signIdx(privateKey, i);
    } catch (cause) {
      throw invalidPsbt(
        `Input ${i} cannot be signed: ${cause instanceof Error ? cause.message : 'invalid'}`,
        cause,
      );
    }
    // The input pays the wallet's script, so only a key that is not the wallet's fails here.
    if (!signed) throw new LatchkeyError('internal_error', "The secret key is not the wallet's key.");
  }
  return base64.encode(parsed.tx.toPSBT());
}
