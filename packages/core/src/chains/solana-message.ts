/** The parts of a Solana message the signer needs: who must sign, in slot order. */
export interface SolanaMessageHeader {
  version: 'legacy' | 0;
  numRequiredSignatures: number;
  staticAccountKeys: Uint8Array[];
}

const NOTHING = new Uint8Array(0);

/** One message read off the front of some bytes, with what the runtime's sanitize step checks. */
interface SolanaMessageRead {
  header: SolanaMessageHeader;
  /** Where the message ends. */
  end: number;
  readonlySigned: number;
  readonlyUnsigned: number;
  /** Every instruction's program index is a static key and not the fee payer. */
  programsInRange: boolean;
  /** The highest account index an instruction names (-1 for none). */
  maxAccountIndex: number;
  /** Accounts the address table lookups load (v0). */
  lookupAccounts: number;
}

/**
 * Reads one legacy or v0 message from the start of `bytes`: its header and where it ends, or
 * undefined when the bytes run out, the version is unknown or (when `canonical`) a compact-u16
 * is in a longer form than needed. What follows the message is left to the caller.
 */
function readSolanaMessage(bytes: Uint8Array, canonical: boolean): SolanaMessageRead | undefined {
  let at = 0;
  let ok = true;
  const take = (n: number): Uint8Array => {
    if (!ok || at + n > bytes.length) {
      ok = false;
      return NOTHING;
    }
    const out = bytes.subarray(at, at + n);
    at += n;
    return out;
  };
  const u8 = () => take(1)[0] ?? 0;
  /**
   * compact-u16: 7 bits a byte, low first. The validator takes at most 3 bytes in the shortest
   * form; @solana/web3.js takes any number of bytes and a count cut off at the end as ended
   * there, and the lenient reading follows it.
   */
  const shortvec = (): number => {
    let value = 0;
    for (let i = 0; canonical ? i < 3 : true; i++) {
      if (!canonical && ok && at === bytes.length) return value;
      const byte = u8();
      if (!ok) return 0;
      value += (byte & 0x7f) * 2 ** (7 * i);
      if ((byte & 0x80) === 0) {
        // A zero high byte past the first is a longer encoding than needed.
        if (canonical && i > 0 && byte === 0) ok = false;
        if (value > 0xffff) ok = false;
        return value;
      }
    }
    ok = false;
    return 0;
  };
  const vecOfBytes = () => take(shortvec());

  const first = u8();
  let version: 'legacy' | 0 = 'legacy';
  let numRequiredSignatures = first;
  if (first & 0x80) {
    if ((first & 0x7f) !== 0) return undefined;
    version = 0;
    numRequiredSignatures = u8();
  }
  const readonlySigned = u8();
  const readonlyUnsigned = u8();
  const keyCount = shortvec();
  // Bytes that are no message (most text) claim more keys than they hold: answered before any
  // key is read, not after up to 65,535 empty reads.
  if (!ok || at + keyCount * 32 + 32 > bytes.length) return undefined;
  const staticAccountKeys = Array.from({ length: keyCount }, () => take(32));
  take(32); // recent blockhash
  const instructions = shortvec();
  let programsInRange = true;
  let maxAccountIndex = -1;
  for (let i = 0; i < instructions && ok; i++) {
    const program = u8();
    if (program === 0 || program >= keyCount) programsInRange = false;
    for (const account of vecOfBytes()) maxAccountIndex = Math.max(maxAccountIndex, account);
    vecOfBytes(); // data
  }
  let lookupAccounts = 0;
  if (version === 0) {
    const lookups = shortvec();
    for (let i = 0; i < lookups && ok; i++) {
      take(32); // lookup table address
      lookupAccounts += vecOfBytes().length; // writable indexes
      lookupAccounts += vecOfBytes().length; // read-only indexes
    }
  }
  if (!ok) return undefined;
  return {
    header: { version, numRequiredSignatures, staticAccountKeys },
    end: at,
    readonlySigned,
    readonlyUnsigned,
    programsInRange,
    maxAccountIndex,
    lookupAccounts,
  };
}

/**
 * Reads a whole legacy or v0 message, exactly: a shortvec in a longer form than needed, an
 * unknown version, a read past the end or a byte left over is not a message. So what the
 * signer checked is all that is signed, and a parse that succeeds means the bytes are the
 * canonical serialization of the message (what a round trip through @solana/web3.js gives back).
 * Returns undefined for anything else.
 */
export function parseSolanaMessage(bytes: Uint8Array): SolanaMessageHeader | undefined {
  const read = readSolanaMessage(bytes, true);
  return read && read.end === bytes.length ? read.header : undefined;
}

/**
 * Whether `bytes` begin with a legacy or v0 message a validator would run, whatever follows it.
 * A validator reads a packet's transaction and lets bytes trail it, while the signature covers
 * the message and those bytes alike: a signature over such bytes can authorise the message's
 * transaction. Read leniently (longer compact-u16 forms, a last count left out), so a reader
 * looser than the validator's is covered as well.
 *
 * Only the runtime's own sanitize rules, which every validator applies to every message, narrow
 * it: without them about 20 kB of ordinary prose reads as a message (its first bytes as counts,
 * the next as keys and instructions), and long text could not be signed.
 */
export function startsWithSolanaMessage(bytes: Uint8Array): boolean {
  const read = readSolanaMessage(bytes, false);
  return read !== undefined && runtimeWouldSanitize(read);
}

/** The message checks of the Solana runtime's sanitize step, the same for legacy and v0. */
function runtimeWouldSanitize(read: SolanaMessageRead): boolean {
  const keys = read.header.staticAccountKeys.length;
  const required = read.header.numRequiredSignatures;
  return (
    // A writable fee payer signs: at least one signer is not read-only.
    read.readonlySigned < required &&
    required + read.readonlyUnsigned <= keys &&
    read.programsInRange &&
    read.maxAccountIndex < keys + read.lookupAccounts
  );
}
