import { base64 } from '@scure/base';

// qrcode is loaded on the first enrolment only: most processes never make a QR code, and
// importing it costs more than drawing one.
let qrcode: Promise<typeof import('qrcode')> | undefined;
const loadQrcode = () => (qrcode ??= import('qrcode'));

/**
 * The TOTP enrolment QR code as a PNG data URL, made in plain JS: qrcode's module matrix (its core,
 * which every build of qrcode shares) drawn into an 8-bit greyscale PNG compressed with the
 * Web-standard CompressionStream. qrcode's own PNG output needs pngjs in Node and a DOM canvas
 * elsewhere, so it fails on Workers, Deno and other runtimes without one.
 */
export async function qrPngDataUrl(
  text: string,
  options: { margin: number; scale: number },
): Promise<string> {
  const { create } = await loadQrcode();
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const { margin, scale } = options;
  const side = (modules.size + 2 * margin) * scale;
  // One filter byte (0: none) per row, then one byte per pixel: 0 dark, 255 light.
  const pixels = new Uint8Array(side * (side + 1)).fill(255);
  for (let y = 0; y < side; y++) {
    pixels[y * (side + 1)] = 0;
    const row = Math.floor(y / scale) - margin;
    for (let x = 0; x < side; x++) {
      const col = Math.floor(x / scale) - margin;
      const inside = row >= 0 && col >= 0 && row < modules.size && col < modules.size;
      if (inside && modules.get(row, col)) pixels[y * (side + 1) + 1 + x] = 0;
    }
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, side);
  view.setUint32(4, side);
  header.set([8, 0, 0, 0, 0], 8); // bit depth 8, greyscale, deflate, adaptive filtering, no interlace
  const png = concat([
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', await deflate(pixels)),
    chunk('IEND', new Uint8Array(0)),
  ]);
  return `data:image/png;base64,${base64.encode(png)}`;
}

/** zlib-wrapped deflate (RFC 1950), which is what a PNG's IDAT holds. */
async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A PNG chunk: length, type, data, CRC-32 of type and data. */
function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
