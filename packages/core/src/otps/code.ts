import type { RandomSource } from '../ports/random.js';

const LIMIT = 4_294_000_000; // the largest multiple of 10^6 below 2^32: keeps digits uniform

/** A 6-digit passcode, uniform over 000000–999999 (rejection sampling, no modulo bias). */
export function generateOtpCode(random: RandomSource): string {
  for (;;) {
    const b = random.bytes(4);
    const n = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
    if (n < LIMIT) return String(n % 1_000_000).padStart(6, '0');
  }
}
