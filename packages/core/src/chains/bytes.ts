import { hex } from '@scure/base';
import { LatchkeyError } from '../errors.js';

/** Zeroes key material in place once it is no longer needed. */
export function wipe(...arrays: (Uint8Array | null | undefined)[]): void {
  for (const a of arrays) a?.fill(0);
}

export const invalidPrivateKey = (message: string, cause?: unknown): LatchkeyError =>
  new LatchkeyError('invalid_private_key', message, { field: 'private_key', cause });

/** Hex with or without `0x`, of exactly `lengths` bytes; undefined when it is not that. */
export function parseHex(s: string, ...lengths: number[]): Uint8Array | undefined {
  const body = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s;
  if (!/^[0-9a-fA-F]*$/.test(body) || !lengths.includes(body.length / 2)) return undefined;
  return hex.decode(body.toLowerCase());
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
