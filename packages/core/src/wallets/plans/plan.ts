import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { bytesEqual } from '../../chains/bytes.js';
import { LatchkeyError } from '../../errors.js';
import type { SigningRequest } from '../../shared/signing-request.js';
import type { WalletRecord } from '../repo.js';
import type { SignTransactionRequest, SignTypedDataRequest } from '../schema.js';

/** The payload readers and signers, loaded on the first signature: their libraries weigh more than the rest. */
let signing: Promise<typeof import('../../chains/signing.js')> | undefined;
export const loadSigning = () => (signing ??= import('../../chains/signing.js'));

/**
 * A signing request read and checked without any key: the facts the policies judge, the
 * payload's digest for the audit trail, and how to sign once the gate allows it.
 */
export interface SigningPlan<R> {
  method: SigningRequest['method'];
  payload_digest: string;
  facts: Pick<SigningRequest, 'evm' | 'solana' | 'bitcoin'>;
  /** Signs with the wallet's raw secret (`ChainModule.decodeSecret`'s form). */
  sign(secret: Uint8Array): Promise<R>;
}

export interface SignedTransactionParts {
  signature?: string;
  signed_transaction: string;
  transaction_hash?: string;
}

type TransactionField = keyof SignTransactionRequest;

/** The one transaction field a chain's wallets sign, and how its payload is planned. */
export interface TransactionPlanner {
  field: TransactionField;
  /** `input` names `field` (checked by the caller). */
  plan(wallet: WalletRecord, input: SignTransactionRequest): Promise<SigningPlan<SignedTransactionParts>>;
}

/**
 * How one chain's wallets sign: what each method checks before the gate, and the signature it
 * makes after. A chain's module under plans/ is its whole signing side; signing-plans.ts lists them.
 */
export interface ChainSigning {
  /** How this chain's message signatures are written. */
  signatureEncoding: 'hex' | 'base58' | 'base64';
  /**
   * Checks a message's bytes (refusing here what the signer would refuse after the gate and the
   * key) and answers how to sign them.
   */
  message(wallet: WalletRecord, bytes: Uint8Array): Promise<(secret: Uint8Array) => Promise<string>>;
  /** Absent: the chain's wallets sign messages only. */
  transaction?: TransactionPlanner;
  /** EIP-712 typed data; absent for the chains that have none. */
  typedData?(wallet: WalletRecord, input: SignTypedDataRequest): Promise<SigningPlan<string>>;
}

/** A chain's planner for its own field of the request, typed by that field. */
export const transactionPlanner = <F extends TransactionField>(
  field: F,
  plan: (
    wallet: WalletRecord,
    input: NonNullable<SignTransactionRequest[F]>,
  ) => Promise<SigningPlan<SignedTransactionParts>>,
): TransactionPlanner => ({ field, plan: (wallet, input) => plan(wallet, input[field]!) });

export const digest = (bytes: Uint8Array) => bytesToHex(sha256(bytes));

export const mismatch = (message: string, field: string) =>
  new LatchkeyError('wallet_type_mismatch', message, { field });

/** An ed25519 key of the wallet: refused as our bug if the vault gave another wallet's key. */
export async function ed25519WalletKey(seed: Uint8Array, publicKey: Uint8Array | undefined) {
  const key = await (await loadSigning()).ed25519SigningKey(seed);
  if (!publicKey || !bytesEqual(key.publicKey, publicKey))
    throw new LatchkeyError('internal_error', "The secret key is not the wallet's key.");
  return key;
}
