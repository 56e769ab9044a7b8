import { createECDH, createHmac, createPrivateKey, sign as nodeSign, pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import * as sr25519 from '@scure/sr25519';
import express, { type Router } from 'express';
import { eip191, PKCS8_ED25519 } from './ed25519-rate.js';
import type { Target } from './measure.js';

/**
 * Bare Express routes that do only the cryptography a wallet route cannot skip, with keys held in
 * memory: no API key, no storage, no vault, no policy, no audit entry. What they reach is the
 * most any one-process HTTP server can reach for that work on this machine, in the same run, so
 * it says how far issue 18's ratio targets (≥ 0.8× the primitive) are reachable at all.
 */
export function signingCeilings(): Router {
  const router = express.Router();
  router.use(express.json());
  const message = (req: express.Request) => new TextEncoder().encode(String(req.body?.message ?? ''));
  for (const [path, sign] of Object.entries(SIGNERS) as [string, Signer][])
    router.post(`/sign/${path}`, (req, res) => {
      res.json({ signature: sign(message(req)) });
    });
  router.post('/create/ethereum', async (_req, res, next) => {
    try {
      res.json({ address: await ethereumAddressOfNewSeed() });
    } catch (err) {
      next(err);
    }
  });
  return router;
}

export type Signer = (message: Uint8Array) => string;

const secpKey = secp256k1.utils.randomSecretKey();
// The wallet keeps the mini secret and expands it per signature, as the primitive row does.
const miniSecret = randomBytes(32);
const edKey = createPrivateKey({
  key: Buffer.concat([PKCS8_ED25519, randomBytes(32)]),
  format: 'der',
  type: 'pkcs8',
});
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/**
 * Each ceiling route's cryptography by its path, the key in memory: a message's signature as the
 * wallet route answers it, hex. Shared with the bound routes (signing-bounds.ts).
 */
export const SIGNERS = {
  ethereum: (message) => {
    const signed = secp256k1.sign(keccak_256(eip191(message)), secpKey, {
      prehash: false,
      format: 'recovered',
    });
    // r ‖ s ‖ v, as personal_sign answers (noble puts the recovery bit first).
    return hex(Buffer.concat([signed.subarray(1), Buffer.of(27 + signed[0]!)]));
  },
  bitcoin: (message) =>
    hex(secp256k1.sign(sha256(sha256(message)), secpKey, { prehash: false, format: 'der' })),
  DOT: (message) => hex(sr25519.sign(sr25519.secretFromSeed(miniSecret), message)),
  ed25519: (message) => hex(nodeSign(null, message, edKey)),
} satisfies Record<string, Signer>;

const pbkdf2Async = promisify(pbkdf2);
const N = secp256k1.Point.Fn.ORDER;
const PATH = [0x8000002c, 0x8000003c, 0x80000000, 0, 0]; // m/44'/60'/0'/0/0

const publicKey = (secret: Uint8Array, compressed: boolean) => {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(secret);
  return ecdh.getPublicKey(null, compressed ? 'compressed' : 'uncompressed');
};

/**
 * What creating a new user's ethereum wallet must compute: 32 bytes of entropy, the BIP-39 seed
 * stretch (2,048 rounds of PBKDF2-SHA512, on the thread pool), BIP-32 down m/44'/60'/0'/0/0 (two
 * non-hardened steps, each needing its parent's public key) and the address's public key, all
 * on node:crypto. The mnemonic's words are left out (the stretch runs over the entropy's hex):
 * cheaper than the real thing, so a bound.
 */
async function ethereumAddressOfNewSeed(): Promise<string> {
  return (await newEthereumKey()).address;
}

/**
 * The ceiling's cryptography with what it makes kept: the entropy, the BIP-44 private key and
 * its address. The create bound (create-bound.ts) seals the first two.
 */
export async function newEthereumKey(): Promise<{ entropy: Buffer; privateKey: Buffer; address: string }> {
  const entropy = randomBytes(32);
  const seed = await pbkdf2Async(entropy.toString('hex'), 'mnemonic', 2048, 64, 'sha512');
  return { entropy, ...ethereumKey(seed) };
}

/** The BIP-44 ethereum address of a BIP-39 seed (exported to be checked against @scure/bip32). */
export function ethereumAddress(seed: Uint8Array): string {
  return ethereumKey(seed).address;
}

function ethereumKey(seed: Uint8Array): { privateKey: Buffer; address: string } {
  let node = createHmac('sha512', 'Bitcoin seed').update(seed).digest();
  for (const index of PATH) {
    const key = node.subarray(0, 32);
    const data = Buffer.alloc(37);
    if (index >= 0x80000000) key.copy(data, 1);
    else publicKey(key, true).copy(data);
    data.writeUInt32BE(index, 33);
    const I = createHmac('sha512', node.subarray(32)).update(data).digest();
    const child = (BigInt(`0x${I.subarray(0, 32).toString('hex')}`) + BigInt(`0x${key.toString('hex')}`)) % N;
    node = Buffer.concat([Buffer.from(child.toString(16).padStart(64, '0'), 'hex'), I.subarray(32)]);
  }
  const privateKey = node.subarray(0, 32);
  const address = `0x${Buffer.from(keccak_256(publicKey(privateKey, false).subarray(1)).subarray(12)).toString('hex')}`;
  return { privateKey, address };
}

/** The ceiling rows, named so that each is set against its primitive like the route it bounds. */
export function signingCeilingTargets(base: string): Target[] {
  const body = { message: 'Sign in to example.com\nNonce: 8f2a61c0' };
  const sign = (chain: string, path: string): Target => ({
    name: `ceiling: bare Express route + sign_message ${chain} primitive only`,
    url: `${base}/sign/${path}`,
    method: 'POST',
    body,
  });
  return [
    sign('ethereum', 'ethereum'),
    sign('bitcoin', 'bitcoin'),
    sign('DOT', 'DOT'),
    sign('solana/XLM', 'ed25519'),
    {
      name: 'ceiling: bare Express route + wallets/create ethereum cryptography only (new seed)',
      url: `${base}/create/ethereum`,
      method: 'POST',
      body: {},
    },
  ];
}
