import { createPrivateKey, sign as nodeSign } from 'node:crypto';
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

/** The PKCS#8 header of an Ed25519 private key; the 32-byte seed follows. */
export const PKCS8_ED25519 = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

/** The EIP-191 prefix of a message, as personal_sign hashes it. */
export const eip191 = (message: Uint8Array) =>
  new Uint8Array([
    ...new TextEncoder().encode(`\x19Ethereum Signed Message:\n${message.length}`),
    ...message,
  ]);

/**
 * The raw rates the signing routes sit on, measured in this process, one after the other: the
 * floor each sign_message / sign_transaction row is compared with (the same run, the same load).
 * Each is the library call the route makes for that chain, with the key in the form the wallet
 * stores it: node:crypto Ed25519 with the key imported once (solana, XLM: the route reuses an
 * imported key; Web Crypto's, what runtimes without node:crypto use, beside it), noble secp256k1 over keccak256 of the EIP-191 message (ethereum) and over a
 * double SHA-256 (the BIP-322 signature; the route also builds its two virtual transactions),
 * sr25519 from the stored 32-byte mini-secret (DOT).
 */
export async function signingPrimitiveRates(seconds: number): Promise<Measurement[]> {
  const message = new Uint8Array(215).fill(1); // about a one-transfer Solana message
  const text = new TextEncoder().encode('Sign in to example.com\nNonce: 8f2a61c0');
  const edSeed = ed25519.utils.randomSecretKey();
  const secpKey = secp256k1.utils.randomSecretKey();
  const miniSecret = ed25519.utils.randomSecretKey();
  const pkcs8 = new Uint8Array([...PKCS8_ED25519, ...edSeed]);
  const edKey = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, false, ['sign']);
  const nodeKey = createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' });
  return [
    await rate('primitive: @noble/curves ed25519.sign', seconds, (i) => {
      message[0] = i & 0xff;
      return ed25519.sign(message, edSeed);
    }),
    // What a signature by a stored seed costs on Web Crypto when the key is imported each time.
    await rate('primitive: Web Crypto Ed25519 (import + sign)', seconds, async (i) => {
      message[0] = i & 0xff;
      const key = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, false, ['sign']);
      return crypto.subtle.sign({ name: 'Ed25519' }, key, message);
    }),
    await rate('primitive: Web Crypto Ed25519 sign (key imported once)', seconds, (i) => {
      message[0] = i & 0xff;
      return crypto.subtle.sign({ name: 'Ed25519' }, edKey, message);
    }),
    // What the routes call where the runtime has node:crypto (see core's chains/ed25519-sign.ts).
    await rate('primitive: node:crypto Ed25519 sign (key imported once)', seconds, (i) => {
      message[0] = i & 0xff;
      return nodeSign(null, message, nodeKey);
    }),
    await rate('primitive: secp256k1 recoverable sign of keccak256 (EIP-191)', seconds, (i) => {
      text[0] = i & 0xff;
      return secp256k1.sign(keccak_256(eip191(text)), secpKey, { prehash: false, format: 'recovered' });
    }),
    await rate('primitive: secp256k1 DER sign of sha256d (BIP-322)', seconds, (i) => {
      message[0] = i & 0xff;
      return secp256k1.sign(sha256(sha256(message)), secpKey, { prehash: false, format: 'der' });
    }),
    await rate('primitive: @scure/sr25519 secretFromSeed + sign', seconds, (i) => {
      text[0] = i & 0xff;
      return sr25519.sign(sr25519.secretFromSeed(miniSecret), text);
    }),
  ];
}

/** Which primitive each wallet signing row is compared with (its name, as in the table). */
export const PRIMITIVE_OF: ReadonlyArray<[RegExp, string]> = [
  [
    /sign_message ethereum|signMessage ethereum/,
    'primitive: secp256k1 recoverable sign of keccak256 (EIP-191)',
  ],
  [/sign_message bitcoin|signMessage bitcoin/, 'primitive: secp256k1 DER sign of sha256d (BIP-322)'],
  [/sign_message DOT|signMessage DOT/, 'primitive: @scure/sr25519 secretFromSeed + sign'],
  [
    /sign_message (solana|XLM)|signMessage (solana|XLM)|sign_transaction|signTransaction/,
    'primitive: node:crypto Ed25519 sign (key imported once)',
  ],
];
