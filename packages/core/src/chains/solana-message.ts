/** The parts of a Solana message the signer needs: who must sign, in slot order. */
export interface SolanaMessageHeader {
  version: 'legacy' | 0;
  numRequiredSignatures: number;
  staticAccountKeys: Uint8Array[];
}

const NOTHING = new Uint8Array(0);

/**
 * Reads a whole legacy or v0 message, exactly: a shortvec in a longer form than needed, an
 * unknown version, a read past the end or a byte left over is not a message. So what the
 * signer checked is all that is signed, and a parse that succeeds means the bytes are the
 * canonical serialization of the message (what a round trip through @solana/web3.js gives back).
 * Returns undefined for anything else.
 */
export function parseSolanaMessage(bytes: Uint8Array): SolanaMessageHeader | undefined {
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
  /** compact-u16: 7 bits a byte, low first, at most 3 bytes, shortest form only. */
  const shortvec = (): number => {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const byte = u8();
      if (!ok) return 0;
      value |= (byte & 0x7f) << (7 * i);
      if ((byte & 0x80) === 0) {
        // A zero high byte past the first is a longer encoding than needed.
        if (i > 0 && byte === 0) ok = false;
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
  take(2); // read-only signed and read-only unsigned counts
  const keyCount = shortvec();
  // Bytes that are no message (most text) claim more keys than they hold: answered before any
  // key is read, not after up to 65,535 empty reads.
  if (!ok || at + keyCount * 32 + 32 > bytes.length) return undefined;
  const staticAccountKeys = Array.from({ length: keyCount }, () => take(32));
  take(32); // recent blockhash
  const instructions = shortvec();
  for (let i = 0; i < instructions && ok; i++) {
    u8(); // program id index
    vecOfBytes(); // account indexes
    vecOfBytes(); // data
  }
  if (version === 0) {
    const lookups = shortvec();
    for (let i = 0; i < lookups && ok; i++) {
      take(32); // lookup table address
      vecOfBytes(); // writable indexes
      vecOfBytes(); // read-only indexes
    }
  }
  if (!ok || at !== bytes.length) return undefined;
  return { version, numRequiredSignatures, staticAccountKeys };
}
