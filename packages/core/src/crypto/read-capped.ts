/**
 * A stream's bytes as UTF-8 text, counted as they arrive: past `maxBytes` the stream is
 * cancelled and `tooLarge()` is thrown, so a huge or endless body never fills memory.
 */
export async function readTextCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
