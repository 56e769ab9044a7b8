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

// The bound rows: the ceiling's signature plus one durable insert, grouped like Latchkey's
// audit entries. Only with a Postgres (the bench runs them only then).
describe.skipIf(!process.env.DATABASE_URL)('bench signing bounds', () => {
  it('signs as the ceiling does and stores one row per request, concurrent ones in shared statements', async () => {
    const pg = (await import('pg')).default;
    const { signingBounds } = await import('../bench/src/signing-bounds.js');
    const bounds = await signingBounds(process.env.DATABASE_URL!);
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const table = bounds.table;
      const app = express().use(bounds.router);
      const message = 'Sign in to example.com\nNonce: 8f2a61c0';
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          request(app)
            .post('/sign/ethereum')
            .send({ message: `${message}${i}` })
            .expect(200),
        ),
      );
      const signers = answers.map((a, i) => verifyMessage(`${message}${i}`, `0x${a.body.signature}`));
      expect(new Set(signers).size).toBe(1);
      const { rows } = await client.query(
        `select count(*)::int as n, count(distinct xmin::text)::int as statements from ${table}`,
      );
      expect(rows[0].n).toBe(20);
      // One statement per group: 20 requests at once cannot have needed 20 commits.
      expect(rows[0].statements).toBeLessThan(20);
    } finally {
      await client.end();
      await bounds.close();
    }
  });
});

// The create bound: the create ceiling's cryptography plus the seed and the wallet sealed as
// Latchkey's vault seals them and stored by one durable statement. Only with a Postgres.
describe.skipIf(!process.env.DATABASE_URL)('bench create bound', () => {
  it('stores one seed and one wallet per request, sealed so that Latchkey’s vault opens them', async () => {
    const pg = (await import('pg')).default;
    const { pbkdf2Sync } = await import('node:crypto');
    const { localKeyVault } = await import('@latchkey/core');
    const { createBound } = await import('../bench/src/create-bound.js');
    const masterKey = randomBytes(32);
    const bound = await createBound(process.env.DATABASE_URL!, masterKey);
    const vault = localKeyVault({ keys: { '1': masterKey.toString('base64url') }, current: 1 });
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const app = express().use(bound.router);
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => request(app).post('/create/ethereum').send({}).expect(200)),
      );
      const { rows } = await client.query(
        `select w.*, s.sealed_entropy from ${bound.tables.wallets} w join ${bound.tables.seeds} s
           on s.id = w.key_id and s.user_id = w.user_id`,
      );
      expect(rows).toHaveLength(12);
      const { rows: seeds } = await client.query(`select count(*)::int as n from ${bound.tables.seeds}`);
      expect(seeds[0].n).toBe(12);
      expect(new Set(rows.map((r) => r.user_id)).size).toBe(12);
      for (const answer of answers) {
        const row = rows.find((r) => r.id === answer.body.wallet_id)!;
        expect(row.public_address).toBe(answer.body.address);
        // The key opens under its wallet's context and is the address's key.
        const key = new TextDecoder().decode(
          await vault.open(row.sealed_private_key, `latchkey/wallet-key/${row.app_id}/${row.id}`),
        );
        const publicKey = secp256k1.getPublicKey(Buffer.from(key.slice(2), 'hex'), false);
        expect(`0x${Buffer.from(keccak_256(publicKey.subarray(1)).subarray(12)).toString('hex')}`).toBe(
          row.public_address,
        );
        // The seed opens under its user's context and derives the same address.
        const entropy = await vault.open(row.sealed_entropy, `latchkey/seed/${row.app_id}/${row.user_id}`);
        const seed = pbkdf2Sync(Buffer.from(entropy).toString('hex'), 'mnemonic', 2048, 64, 'sha512');
        expect(ethereumAddress(seed)).toBe(row.public_address);
      }
    } finally {
      await client.end();
      await bound.close();
    }
  });
});
