import type { Clock } from '../ports/clock.js';
import type { RandomSource } from '../ports/random.js';
import { toBase64Url } from './encoding.js';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix =
  | 'app'
  | 'user'
  | 'email'
  | 'phone'
  | 'session'
  | 'wallet'
  | 'webauthn'
  | 'totp'
  | 'req'
  | 'otp'
  | 'magic'
  | 'challenge'
  | 'seed'
  | 'key'
  | 'policy'
  | 'signature'
  | 'spend';

/**
 * `prefix_` + 26 Crockford base32 characters: 48 bits of milliseconds then 80 random bits
 * (the ULID layout). Ids sort by creation time, which keeps B-tree inserts local and gives
 * cursor pagination a stable order.
 */
export function newId(prefix: IdPrefix, clock: Clock, random: RandomSource): string {
  const bytes = new Uint8Array(16);
  let ms = clock.now();
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes.set(random.bytes(10), 6);
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
