/**
 * How many RLP items (strings and lists, at every depth) `bytes` holds, counting no further than
 * `max + 1`: one pass over the headers, each string's payload skipped, each list's entered. Used
 * to refuse an encoding with too many items before a full decode, whose cost per item is far
 * above its bytes. Malformed lengths end the count where they point past the end.
 */
export function rlpItemCount(bytes: Uint8Array, max: number): number {
  let count = 0;
  let at = 0;
  const lengthAt = (from: number, width: number): number => {
    let n = 0;
    for (let i = 0; i < width; i++) n = n * 256 + (bytes[from + i] ?? 0);
    return n;
  };
  while (at < bytes.length && count <= max) {
    const b = bytes[at]!;
    count++;
    if (b < 0x80) at += 1;
    else if (b <= 0xb7) at += 1 + (b - 0x80);
    else if (b <= 0xbf) at += 1 + (b - 0xb7) + lengthAt(at + 1, b - 0xb7);
    else if (b <= 0xf7)
      at += 1; // a short list: its items follow
    else at += 1 + (b - 0xf7); // a long list: its length, then its items
  }
  return count;
}
