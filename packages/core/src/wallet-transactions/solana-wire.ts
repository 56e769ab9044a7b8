import { base58 } from '@scure/base';
import { bytesEqual } from '../chains/bytes.js';
import { LatchkeyError } from '../errors.js';

const FIELD = 'sol_transaction.transaction';
const SYSTEM_PROGRAM = new Uint8Array(32);
/** A blockhash of 32 zero bytes: the caller leaves it to Latchkey. */
const UNSET_BLOCKHASH = new Uint8Array(32);

const malformed = () =>
  new LatchkeyError('invalid_transaction', 'This is not a serialized Solana transaction.', { field: FIELD });

/** Solana's compact-u16: 7 bits a byte, low first, 1 to 3 bytes. */
function shortvec(n: number): number[] {
  const out: number[] = [];
  let rest = n;
  do {
    let byte = rest & 0x7f;
    rest >>= 7;
    if (rest) byte |= 0x80;
    out.push(byte);
  } while (rest);
  return out;
}

function readShortvec(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = bytes[at + i];
    if (byte === undefined) throw malformed();
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return { value, next: at + i + 1 };
  }
  throw malformed();
}

/** Where a wire transaction keeps what a send reads and fills. */
export interface SolanaEnvelope {
  /** The first static key: the account that pays the fee (and signs first). */
  feePayer: string;
  /** Base58; `null` when left unset (all zeros). */
  blockhash: string | null;
  /** Byte offset of the recent blockhash. */
  blockhashAt: number;
  /** Whether any signature slot already holds a signature. */
  signedByAny: boolean;
}

/** Reads the fee payer and the blockhash of a serialized legacy or v0 transaction. */
export function readEnvelope(bytes: Uint8Array): SolanaEnvelope {
  const sigs = readShortvec(bytes, 0);
  const messageAt = sigs.next + sigs.value * 64;
  if (sigs.value === 0 || messageAt > bytes.length) throw malformed();
  let signedByAny = false;
  for (let i = sigs.next; i < messageAt; i++) if (bytes[i] !== 0) signedByAny = true;
  let at = messageAt;
  const first = bytes[at];
  if (first === undefined) throw malformed();
  if (first & 0x80) at += 1; // the version byte of a v0 message
  at += 3; // header: required signatures, read-only signed, read-only unsigned
  const keys = readShortvec(bytes, at);
  if (keys.value === 0) throw malformed();
  const keysAt = keys.next;
  const blockhashAt = keysAt + keys.value * 32;
  if (blockhashAt + 32 > bytes.length) throw malformed();
  const hash = bytes.subarray(blockhashAt, blockhashAt + 32);
  return {
    feePayer: base58.encode(bytes.subarray(keysAt, keysAt + 32)),
    blockhash: bytesEqual(hash, UNSET_BLOCKHASH) ? null : base58.encode(hash),
    blockhashAt,
    signedByAny,
  };
}

/** A copy of the transaction with its recent blockhash set. */
export function withBlockhash(bytes: Uint8Array, envelope: SolanaEnvelope, blockhash: string): Uint8Array {
  const out = bytes.slice();
  out.set(base58.decode(blockhash), envelope.blockhashAt);
  return out;
}

/** A 32-byte Solana address, or null. */
export function solanaAddress(text: string): Uint8Array | null {
  if (text.length < 32 || text.length > 44) return null;
  try {
    const bytes = base58.decode(text);
    return bytes.length === 32 ? bytes : null;
  } catch {
    return null;
  }
}

/**
 * An unsigned legacy transaction of one System transfer from `from` (fee payer and signer) to
 * `to`, with one empty signature slot.
 */
export function systemTransfer(
  from: Uint8Array,
  to: Uint8Array,
  lamports: bigint,
  blockhash: string,
): Uint8Array {
  const self = bytesEqual(from, to);
  // Keys are unique: a transfer to the wallet itself names it once.
  const keys = self ? [from, SYSTEM_PROGRAM] : [from, to, SYSTEM_PROGRAM];
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, 2, true); // Transfer
  view.setBigUint64(4, lamports, true);
  const program = keys.length - 1;
  const message = [
    1, // required signatures: the wallet
    0, // read-only signed
    1, // read-only unsigned: the System program
    ...shortvec(keys.length),
    ...keys.flatMap((k) => [...k]),
    ...base58.decode(blockhash),
    ...shortvec(1),
    program,
    ...shortvec(2),
    0,
    self ? 0 : 1,
    ...shortvec(data.length),
    ...data,
  ];
  return Uint8Array.from([...shortvec(1), ...new Uint8Array(64), ...message]);
}
