import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { HDKey } from '@scure/bip32';
import { verifyMessage } from 'ethers';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { ethereumAddress, signingCeilings } from '../bench/src/signing-ceilings.js';

// The bench's ceiling rows bound issue 18's targets only if they do the work a wallet route
// cannot skip: checked here against independent libraries.
describe('bench signing ceilings', () => {
  it('derives the BIP-44 ethereum address that @scure/bip32 derives', () => {
    for (let i = 0; i < 20; i++) {
      const seed = randomBytes(64);
      const key = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0/0").privateKey!;
      const expected = `0x${Buffer.from(keccak_256(secp256k1.getPublicKey(key, false).subarray(1)).subarray(12)).toString('hex')}`;
      expect(ethereumAddress(seed)).toBe(expected);
    }
  });

  it('signs real EIP-191 signatures and creates real addresses', async () => {
    const app = express().use(signingCeilings());
    const message = 'Sign in to example.com\nNonce: 8f2a61c0';
    const first = await request(app).post('/sign/ethereum').send({ message }).expect(200);
    const second = await request(app)
      .post('/sign/ethereum')
      .send({ message: `${message}!` })
      .expect(200);
    // One key signs both: ethers recovers the same signer from each.
    expect(verifyMessage(message, `0x${first.body.signature}`)).toBe(
      verifyMessage(`${message}!`, `0x${second.body.signature}`),
    );
    const created = await request(app).post('/create/ethereum').send({}).expect(200);
    expect(created.body.address).toMatch(/^0x[0-9a-f]{40}$/);
  });
});
