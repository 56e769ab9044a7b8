import { ed25519 } from '@noble/curves/ed25519.js';
import type { Measurement } from './measure.js';

/** The raw @noble/curves ed25519 signing rate in this process: the floor sign_transaction sits on. */
export function ed25519SignRate(seconds: number): Measurement {
  const key = ed25519.utils.randomSecretKey();
  const message = new Uint8Array(215).fill(1); // about a one-transfer Solana message
  const end = performance.now() + seconds * 1000;
  let count = 0;
  while (performance.now() < end) {
    message[0] = count & 0xff;
    ed25519.sign(message, key);
    count++;
  }
  return {
    name: '@noble/curves ed25519.sign (in process)',
    requests_per_second: Math.round(count / seconds),
    p50_ms: 0,
    p99_ms: 0,
    errors: 0,
    non_2xx: 0,
    total: count,
  };
}
