import { hex } from '@scure/base';
import * as sr25519 from '@scure/sr25519';
import { utf8 } from '../crypto/encoding.js';
import { bytesEqual, wipe } from './bytes.js';

const OPEN = utf8('<Bytes>');
const CLOSE = utf8('</Bytes>');

const startsWith = (bytes: Uint8Array, prefix: Uint8Array) =>
  bytes.length >= prefix.length && bytesEqual(bytes.subarray(0, prefix.length), prefix);
const endsWith = (bytes: Uint8Array, suffix: Uint8Array) =>
  bytes.length >= suffix.length && bytesEqual(bytes.subarray(bytes.length - suffix.length), suffix);

/**
 * The bytes polkadot.js `signRaw` signs for a message: wrapped in `<Bytes>…</Bytes>`, so that no
 * signed message can be a valid extrinsic payload; a message already wrapped is not wrapped twice.
 */
export function polkadotWrapBytes(message: Uint8Array): Uint8Array {
  if (startsWith(message, OPEN) && endsWith(message, CLOSE) && message.length >= OPEN.length + CLOSE.length)
    return message;
  const out = new Uint8Array(OPEN.length + message.length + CLOSE.length);
  out.set(OPEN);
  out.set(message, OPEN.length);
  out.set(CLOSE, OPEN.length + message.length);
  return out;
}

/** sr25519 over the wrapped message, `0x`-hex (64 bytes). `privateKey`: mini-secret or 64-byte secret key. */
export function signPolkadotMessage(message: Uint8Array, privateKey: Uint8Array): string {
  const secret = privateKey.length === 32 ? sr25519.secretFromSeed(privateKey) : privateKey;
  try {
    return `0x${hex.encode(sr25519.sign(secret, polkadotWrapBytes(message)))}`;
  } finally {
    if (secret !== privateKey) wipe(secret);
  }
}
