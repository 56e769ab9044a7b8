import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import * as sr25519 from '@scure/sr25519';
import type { Measurement } from './measure.js';

/** Runs `op` for `seconds` in this process: the raw rate of a signing primitive. */
async function rate(name: string, seconds: number, op: (i: number) => unknown): Promise<Measurement> {
  const end = performance.now() + seconds * 1000;
  let count = 0;
  while (performance.now() < end) {
    await op(count);
    count++;
  }
  return {
    name,
    requests_per_second: Math.round(count / seconds),
    p50_ms: 0,
    p99_ms: 0,
    errors: 0,
    non_2xx: 0,
    total: count,
  };
}

const PKCS8_ED25519 = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

/**
 * The raw rates the signing routes sit on, measured in this process, one after the other: the
 * floor each sign_message / sign_transaction row is compared with (the same run, the same load).
 */
export async function signingPrimitiveRates(seconds: number): Promise<Measurement[]> {
  const message = new Uint8Array(215).fill(1); // about a one-transfer Solana message
  const edSeed = ed25519.utils.randomSecretKey();
  const secpKey = secp256k1.utils.randomSecretKey();
  const srSecret = sr25519.secretFromSeed(edSeed);
  const pkcs8 = new Uint8Array([...PKCS8_ED25519, ...edSeed]);
  return [
    await rate('primitive: @noble/curves ed25519.sign', seconds, (i) => {
      message[0] = i & 0xff;
      return ed25519.sign(message, edSeed);
    }),
    // What a signature by a stored seed costs on Web Crypto: import the key, then sign.
    await rate('primitive: Web Crypto Ed25519 (import + sign)', seconds, async (i) => {
      message[0] = i & 0xff;
      const key = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, false, ['sign']);
      return crypto.subtle.sign({ name: 'Ed25519' }, key, message);
    }),
    await rate('primitive: secp256k1 recoverable sign of keccak256 (EIP-191)', seconds, (i) => {
      message[0] = i & 0xff;
      return secp256k1.sign(keccak_256(message), secpKey, { prehash: false, format: 'recovered' });
    }),
    await rate('primitive: secp256k1 DER sign of sha256d (BIP-322)', seconds, (i) => {
      message[0] = i & 0xff;
      return secp256k1.sign(sha256(sha256(message)), secpKey, { prehash: false, format: 'der' });
    }),
    await rate('primitive: @scure/sr25519 sign', seconds, (i) => {
      message[0] = i & 0xff;
      return sr25519.sign(srSecret, message);
    }),
  ];
}
