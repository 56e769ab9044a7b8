import { base58 } from '@scure/base';
import { LatchkeyError } from '../errors.js';
import { bytesEqual } from './bytes.js';

const FIELD = 'sol_transaction.transaction';
const SYSTEM_PROGRAM = new Uint8Array(32);

/** What a policy reads from a Solana transaction, before any key is opened. */
export interface SolanaTransactionFacts {
  /** Every program the transaction's top-level instructions invoke, base58, first use first. */
  programs: string[];
  /** Lamports the System program moves on this wallet's authority (transfers, account funding). */
  lamports: bigint;
  /** Whether the wallet is one of the transaction's required signers. */
  walletSigns: boolean;
}

const malformed = () =>
  new LatchkeyError('invalid_transaction', 'This is not a serialized Solana transaction.', { field: FIELD });

/** A cursor over the wire bytes; every read past the end is a malformed transaction. */
function reader(bytes: Uint8Array) {
  let at = 0;
  const take = (n: number) => {
    if (at + n > bytes.length) throw malformed();
    const out = bytes.subarray(at, at + n);
    at += n;
    return out;
  };
  return {
    take,
    u8: () => take(1)[0]!,
    /** Solana's compact-u16 ("shortvec"): 1 to 3 bytes, 7 bits each, low first. */
    shortvec() {
      let value = 0;
      for (let i = 0; i < 3; i++) {
        const byte = take(1)[0]!;
        value |= (byte & 0x7f) << (7 * i);
        if ((byte & 0x80) === 0) return value;
      }
      throw malformed();
    },
  };
}

const u64 = (data: Uint8Array, at: number): bigint | undefined =>
  data.length >= at + 8
    ? new DataView(data.buffer, data.byteOffset + at, 8).getBigUint64(0, true)
    : undefined;

/**
 * Reads a serialized legacy or v0 transaction for the facts a policy judges. Only the message's
 * header, static keys and instructions are read; the signing step still checks the whole message.
 * Lamports moved by other programs through cross-program calls cannot be seen here: a program
 * allow-list is what bounds those.
 */
export function solanaTransactionFacts(
  serialized: Uint8Array,
  walletAddress: string,
): SolanaTransactionFacts {
  const r = reader(serialized);
  const signatures = r.shortvec();
  r.take(signatures * 64);
  const first = r.u8();
  if (first & 0x80 && (first & 0x7f) !== 0) throw malformed();
  const required = first & 0x80 ? r.u8() : first;
  r.take(2); // read-only signed and unsigned counts
  const keys = Array.from({ length: r.shortvec() }, () => r.take(32));
  r.take(32); // recent blockhash
  const wallet = base58.decode(walletAddress);
  const isWallet = (index: number | undefined) =>
    index !== undefined && index < keys.length && bytesEqual(keys[index]!, wallet);

  const programs: string[] = [];
  // Each program is encoded once, however many instructions call it.
  const seenPrograms = new Set<number>();
  let lamports = 0n;
  const instructions = r.shortvec();
  for (let i = 0; i < instructions; i++) {
    const programIndex = r.u8();
    const accounts = r.take(r.shortvec());
    const data = r.take(r.shortvec());
    // Programs cannot come from lookup tables; an index past the static keys names no program.
    const program = keys[programIndex];
    if (!program) throw malformed();
    if (!seenPrograms.has(programIndex)) {
      seenPrograms.add(programIndex);
      const id = base58.encode(program);
      if (!programs.includes(id)) programs.push(id);
    }
    if (bytesEqual(program, SYSTEM_PROGRAM)) lamports += systemLamports(data, accounts, isWallet);
  }
  const walletSigns = keys.slice(0, required).some((k) => bytesEqual(k, wallet));
  return { programs, lamports, walletSigns };
}

/** Lamports a System instruction moves on the wallet's authority; 0 for the others. */
function systemLamports(
  data: Uint8Array,
  accounts: Uint8Array,
  isWallet: (i: number | undefined) => boolean,
): bigint {
  if (data.length < 4) return 0n;
  const kind = new DataView(data.buffer, data.byteOffset, 4).getUint32(0, true);
  switch (kind) {
    case 0: // CreateAccount { lamports, space, owner }: funded by account 0
    case 2: // Transfer { lamports }: from account 0
      return isWallet(accounts[0]) ? (u64(data, 4) ?? 0n) : 0n;
    case 3: {
      // CreateAccountWithSeed { base, seed (u64 length + bytes), lamports, space, owner }
      if (!isWallet(accounts[0])) return 0n;
      const seedLength = u64(data, 36);
      return seedLength === undefined || seedLength > 1000n ? 0n : (u64(data, 44 + Number(seedLength)) ?? 0n);
    }
    case 5: // WithdrawNonceAccount { lamports }: the nonce authority is account 4
      return isWallet(accounts[4]) ? (u64(data, 4) ?? 0n) : 0n;
    case 11: // TransferWithSeed { lamports, .. }: the base that authorises it is account 1
      return isWallet(accounts[1]) ? (u64(data, 4) ?? 0n) : 0n;
    default:
      return 0n;
  }
}
