import type { Clock } from '../ports/clock.js';
import type { RandomSource } from '../ports/random.js';
import { toBase64Url } from './encoding.js';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * The prefixes of ids (`user_…`): those several folders share here; each folder adds its own
 * from its repo.ts (`declare module '../crypto/ids.js'`), so a new record kind edits no shared
 * file. packages/core/test/id-prefixes.test.ts checks that no two folders claim one.
 */
export interface IdPrefixes {
  /** WebAuthn ceremonies and wallet sign-in both issue challenges. */
  challenge: true;
  req: true;
}

export type IdPrefix = keyof IdPrefixes & string;

/**
 * `prefix_` + 26 Crockford base32 characters: 48 bits of milliseconds then 80 random bits
 * (the ULID layout). Ids sort by creation time, which keeps B-tree inserts local and gives
 * cursor pagination a stable order.
 */
export function newId(prefix: IdPrefix, clock: Clock, random: RandomSource): string {
  return encodeId(prefix, clock.now(), random.bytes(10));
}

/**
 * Ids that also sort in the order this generator made them within one millisecond (ULID's
 * monotonic mode: the random part counts up), so a process's events list in write order.
 */
export function monotonicIds(prefix: IdPrefix, clock: Clock, random: RandomSource): () => string {
  let lastMs = -1;
  let tail: Uint8Array = new Uint8Array(10);
  return () => {
    const ms = clock.now();
    if (ms > lastMs) {
      lastMs = ms;
      tail = random.bytes(10);
    } else {
      for (let i = tail.length - 1; i >= 0; i--) {
        tail[i] = ((tail[i] ?? 0) + 1) & 255;
        if (tail[i] !== 0) break;
      }
    }
    return encodeId(prefix, lastMs, tail);
  };
}

function encodeId(prefix: IdPrefix, time: number, tail: Uint8Array): string {
  const bytes = new Uint8Array(16);
  let ms = time;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes.set(tail, 6);
  let out = '';
  let acc = 0;
  // 128 bits → 26 chars: two zero bits in front, as ULID does.
  let bits = 2;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return `${prefix}_${out}`;
}

/** An opaque bearer secret: `prefix` + base64url of `byteLength` random bytes. */
export const newSecret = (prefix: string, random: RandomSource, byteLength = 32): string =>
  `${prefix}${toBase64Url(random.bytes(byteLength))}`;

/** A request id, `req_` + 12 random bytes in base64url: the format of `x-request-id` and `request_id`. */
export const newRequestId = (random: RandomSource): string => newSecret('req_', random, 12);
