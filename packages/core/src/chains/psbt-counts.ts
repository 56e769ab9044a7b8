/**
 * How many inputs and outputs a PSBT declares, read from its global map alone: the unsigned
 * transaction (BIP-174) or the input and output counts (BIP-370). Cheap, so that a PSBT
 * declaring thousands of inputs is refused before the full parse, whose cost (and that of
 * signing) grows with them. Undefined when the global map cannot be read this way; the full
 * parse then decides.
 */
export function psbtCounts(bytes: Uint8Array): { inputs: number; outputs: number } | undefined {
  let at = 0;
  const fail = (): never => {
    throw new RangeError('past the end');
  };
  const u8 = () => (at < bytes.length ? bytes[at++]! : fail());
  /** Bitcoin's CompactSize; values past 2^53 are not counts of anything that fits in a body. */
  const compactSize = (): number => {
    const first = u8();
    if (first < 0xfd) return first;
    const width = first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    let value = 0;
    for (let i = 0; i < width; i++) value += u8() * 2 ** (8 * i);
    return value;
  };
  const skip = (n: number) => {
    if (at + n > bytes.length) fail();
    at += n;
  };
  try {
    if (u8() !== 0x70 || u8() !== 0x73 || u8() !== 0x62 || u8() !== 0x74 || u8() !== 0xff) return undefined;
    let inputs: number | undefined;
    let outputs: number | undefined;
    for (;;) {
      const keyLength = compactSize();
      if (keyLength === 0) break; // the global map's end
      const keyStart = at;
      skip(keyLength);
      const keyType = bytes[keyStart]!;
      const valueLength = compactSize();
      const valueEnd = at + valueLength;
      if (valueEnd > bytes.length) return undefined;
      if (keyLength === 1 && keyType === 0x00) {
        // The unsigned transaction: version, (no witness marker in a PSBT), inputs, outputs.
        skip(4);
        inputs = compactSize();
        // At least 41 bytes each: a forged count stops at the end of the bytes.
        for (let i = 0; i < inputs; i++) {
          skip(36); // previous output
          skip(compactSize()); // script
          skip(4); // sequence
        }
        outputs = compactSize();
      } else if (keyLength === 1 && keyType === 0x04) {
        inputs = compactSize();
      } else if (keyLength === 1 && keyType === 0x05) {
        outputs = compactSize();
      }
      at = valueEnd;
    }
    return inputs === undefined || outputs === undefined ? undefined : { inputs, outputs };
  } catch {
    return undefined;
  }
}
