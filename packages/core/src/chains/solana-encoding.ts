import { base58, base64 } from '@scure/base';
import { LatchkeyError } from '../errors.js';

const FIELD = 'sol_transaction.transaction';

/**
 * Solana's largest transaction (PACKET_DATA_SIZE: an IPv6 MTU less headers): no validator accepts
 * a longer one, so a longer one is refused before any parsing, and every parse after this one is
 * bounded by it.
 */
export const SOLANA_MAX_TRANSACTION_BYTES = 1232;

/**
 * The longest base58 text of that many bytes (each base58 digit carries log2(58) ≈ 5.86 bits; a
 * leading zero byte is one digit). Checked before decoding: base58 decoding is quadratic in length.
 */
const BASE58_MAX_CHARS = Math.ceil((SOLANA_MAX_TRANSACTION_BYTES * 8) / Math.log2(58));
const BASE64_MAX_CHARS = Math.ceil(SOLANA_MAX_TRANSACTION_BYTES / 3) * 4;

const tooLarge = () =>
  new LatchkeyError(
    'invalid_transaction',
    `A Solana transaction is at most ${SOLANA_MAX_TRANSACTION_BYTES} bytes.`,
    { field: FIELD },
  );

/** The bytes of a serialized transaction sent as base64 or base58; a clear 400 when they are not. */
export function decodeTransaction(text: string, encoding: 'base64' | 'base58'): Uint8Array {
  if (text.length > (encoding === 'base64' ? BASE64_MAX_CHARS : BASE58_MAX_CHARS)) throw tooLarge();
  let bytes: Uint8Array;
  try {
    bytes = encoding === 'base64' ? base64.decode(text) : base58.decode(text);
    if (bytes.length === 0) throw new Error('empty');
  } catch {
    throw new LatchkeyError('invalid_transaction', `The transaction is not valid ${encoding}.`, {
      field: FIELD,
    });
  }
  if (bytes.length > SOLANA_MAX_TRANSACTION_BYTES) throw tooLarge();
  return bytes;
}

export const encodeTransaction = (bytes: Uint8Array, encoding: 'base64' | 'base58'): string =>
  encoding === 'base64' ? base64.encode(bytes) : base58.encode(bytes);
