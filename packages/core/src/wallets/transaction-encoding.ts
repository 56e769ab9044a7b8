import { base58, base64 } from '@scure/base';
import { LatchkeyError } from '../errors.js';

const FIELD = 'sol_transaction.transaction';

/** The bytes of a serialized transaction sent as base64 or base58; a clear 400 when they are not. */
export function decodeTransaction(text: string, encoding: 'base64' | 'base58'): Uint8Array {
  try {
    const bytes = encoding === 'base64' ? base64.decode(text) : base58.decode(text);
    if (bytes.length === 0) throw new Error('empty');
    return bytes;
  } catch {
    throw new LatchkeyError('invalid_transaction', `The transaction is not valid ${encoding}.`, {
      field: FIELD,
    });
  }
}

export const encodeTransaction = (bytes: Uint8Array, encoding: 'base64' | 'base58'): string =>
  encoding === 'base64' ? base64.encode(bytes) : base58.encode(bytes);
