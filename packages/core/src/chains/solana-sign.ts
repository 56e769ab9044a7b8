import { base58 } from '@scure/base';
import { LatchkeyError } from '../errors.js';
import { bytesEqual } from './bytes.js';
import { type Ed25519SigningKey, ed25519SigningKey } from './ed25519-sign.js';
import { parseSolanaMessage, startsWithSolanaMessage } from './solana-message.js';

const TRANSACTION_FIELD = 'sol_transaction.transaction';
const SIGNATURE_LENGTH = 64;

export interface SignedSolanaTransaction {
  /** The wallet's signature, base58 (the transaction id when the wallet is the fee payer). */
  signature: string;
  /** The input with the wallet's signature in its slot; every other byte unchanged. */
  signedTransaction: Uint8Array;
}

const invalidTransaction = (message: string, cause?: unknown) =>
  new LatchkeyError('invalid_transaction', message, { field: TRANSACTION_FIELD, cause });

/** Bytes given to sign as a message that a validator could read as a transaction. */
export const transactionAsMessage = () =>
  new LatchkeyError(
    'invalid_field',
    'This message begins with a Solana transaction; sign it as a transaction.',
    {
      field: 'message',
    },
  );

/** Solana's compact-u16 ("shortvec"): 1 to 3 bytes, 7 bits each, low first. */
function readCompactU16(bytes: Uint8Array, offset: number): { value: number; size: number } | undefined {
  let value = 0;
  for (let size = 1; size <= 3; size++) {
    const byte = bytes[offset + size - 1];
    if (byte === undefined) return undefined;
    value |= (byte & 0x7f) << (7 * (size - 1));
    if ((byte & 0x80) === 0) return value > 0xffff ? undefined : { value, size };
  }
  return undefined;
}

/** The 32-byte ed25519 seed of a 32-byte seed or a 64-byte seed ‖ public key secret key. */
function seedOf(secretKey: Uint8Array): Uint8Array {
  if (secretKey.length === 32) return secretKey;
  if (secretKey.length === 64) return secretKey.subarray(0, 32);
  throw new LatchkeyError('internal_error', 'A solana secret key is 32 or 64 bytes.');
}

/** A signing key for the wallet's seed, refusing a secret key that is not `expectedSigner`'s. */
async function walletSigningKey(
  secretKey: Uint8Array,
  expectedSigner: Uint8Array | string,
): Promise<Ed25519SigningKey> {
  const key = await ed25519SigningKey(seedOf(secretKey));
  const expected = typeof expectedSigner === 'string' ? base58.decode(expectedSigner) : expectedSigner;
  const consistent = secretKey.length === 32 || bytesEqual(secretKey.subarray(32), key.publicKey);
  // A key that is not the wallet's is our bug, not the caller's.
  if (!consistent || !bytesEqual(key.publicKey, expected)) {
    throw new LatchkeyError('internal_error', "The secret key is not the wallet's key.");
  }
  return key;
}

/**
 * Signs a serialized legacy or v0 transaction as `expectedSigner`. The wire format is
 * compact-u16 signature count, that many 64-byte signatures, then the message; the first
 * `numRequiredSignatures` static account keys are the signers, in signature-slot order. The
 * message is parsed to find the wallet's slot, and the original message bytes are what is signed.
 */
export async function signSolanaTransaction(
  serialized: Uint8Array,
  secretKey: Uint8Array,
  expectedSigner: Uint8Array | string,
): Promise<SignedSolanaTransaction> {
  const key = await walletSigningKey(secretKey, expectedSigner);
  const publicKey = key.publicKey;
  const count = readCompactU16(serialized, 0);
  if (!count || count.value === 0) throw invalidTransaction('This is not a serialized Solana transaction.');
  const messageStart = count.size + count.value * SIGNATURE_LENGTH;
  const messageBytes = serialized.subarray(messageStart);
  // The parse is exact (no trailing bytes, nothing read past the end or in a longer form than
  // needed), so what was checked is what is signed.
  const message = messageStart < serialized.length ? parseSolanaMessage(messageBytes) : undefined;
  if (!message) throw invalidTransaction('This is not a serialized Solana transaction.');
  const required = message.numRequiredSignatures;
  if (required !== count.value || required > message.staticAccountKeys.length) {
    throw invalidTransaction('The transaction has a different number of signatures than required signers.');
  }
  const slot = message.staticAccountKeys.slice(0, required).findIndex((key) => bytesEqual(key, publicKey));
  if (slot < 0) throw new LatchkeyError('wallet_not_a_signer', undefined, { field: TRANSACTION_FIELD });

  const signature = await key.sign(messageBytes);
  const signedTransaction = serialized.slice();
  signedTransaction.set(signature, count.size + slot * SIGNATURE_LENGTH);
  return { signature: base58.encode(signature), signedTransaction };
}

/**
 * Signs arbitrary off-chain bytes (what wallet apps' `signMessage` does). Bytes that begin with a
 * transaction message are refused, whatever follows it: their signature would authorise that
 * transaction without the signer checks of `signSolanaTransaction`. The off-chain message format
 * (`\xffsolana offchain` ...) begins with 0xff, no message version, so it is signed as given.
 */
export async function signSolanaMessage(
  message: Uint8Array,
  secretKey: Uint8Array,
  expectedSigner: Uint8Array | string,
): Promise<{ signature: string }> {
  const key = await walletSigningKey(secretKey, expectedSigner);
  if (startsWithSolanaMessage(message)) throw transactionAsMessage();
  return { signature: base58.encode(await key.sign(message)) };
}
