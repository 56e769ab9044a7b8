import { Aes256Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import { memoryStorage } from '@latchkey/memory';
import { base58 } from '@scure/base';
import {
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { chainModules, createLatchkey, localKeyVault } from '../src/index.js';
import { expectErrorShape, TEST_SECRET, testApp, testLatchkey } from './helpers.js';

const ABANDON =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const BLOCKHASH = base58.encode(new Uint8Array(32).fill(7));

async function setup() {
  const { latchkey, clock } = testLatchkey();
  const t = await testApp(latchkey);
  const user = await t.call('POST', '/v1/auth/users', {
    email: `w${Math.random().toString(36).slice(2)}@example.com`,
  });
  return { t, latchkey, clock, user_id: user.body.user_id as string };
}

/** An X25519 recipient built with @hpke/core, a published RFC 9180 implementation. */
async function recipient() {
  const suite = new CipherSuite({
    kem: new DhkemX25519HkdfSha256(),
    kdf: new HkdfSha256(),
    aead: new Aes256Gcm(),
  });
  const pair = await suite.kem.generateKeyPair();
  const publicKey = Buffer.from(await suite.kem.serializePublicKey(pair.publicKey)).toString('base64url');
  const open = async (body: { encapsulated_key: string; ciphertext: string }) =>
    new TextDecoder().decode(
      await suite.open(
        {
          recipientKey: pair.privateKey,
          enc: new Uint8Array(Buffer.from(body.encapsulated_key, 'base64url')).buffer,
          info: new TextEncoder().encode('latchkey/wallet-export/v1').buffer as ArrayBuffer,
        },
        new Uint8Array(Buffer.from(body.ciphertext, 'base64url')).buffer,
      ),
    );
  return { publicKey, open };
}

const legacyTx = (feePayer: PublicKey, to = Keypair.generate().publicKey) =>
  new Transaction({ feePayer, recentBlockhash: BLOCKHASH })
    .add(SystemProgram.transfer({ fromPubkey: feePayer, toPubkey: to, lamports: 1000 }))
    .serialize({ requireAllSignatures: false, verifySignatures: false });

const v0Tx = (payerKey: PublicKey) =>
  new VersionedTransaction(
    new TransactionMessage({
      payerKey,
      recentBlockhash: BLOCKHASH,
      instructions: [
        SystemProgram.transfer({ fromPubkey: payerKey, toPubkey: Keypair.generate().publicKey, lamports: 5 }),
      ],
    }).compileToV0Message(),
  ).serialize();

describe('wallets/create and list', () => {
  it('creates one default wallet per type, with the spec’s Wallet fields, and returns it again after', async () => {
    const { t, user_id } = await setup();
    for (const wallet_type of ['ethereum', 'solana', 'bitcoin', 'DOT', 'XLM'] as const) {
      const res = await t.call('POST', '/v1/wallets/create', { wallet_type, user_id });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(
        [
          'app_id',
          'created_at',
          'id',
          'is_default',
          'is_imported',
          'is_read_only',
          'public_address',
          'updated_at',
          'user_id',
          'verified',
          'wallet_type',
        ].sort(),
      );
      expect(res.body).toMatchObject({
        app_id: t.app_id,
        user_id,
        wallet_type,
        is_default: true,
        is_imported: false,
        is_read_only: false,
        verified: true,
      });
      expect(chainModules[wallet_type].isValidAddress(res.body.public_address)).toBe(true);
      const again = await t.call('POST', '/v1/wallets/create', { wallet_type, user_id });
      expect(again.body).toEqual(res.body);
    }
    const user = await t.call('GET', `/v1/auth/users/${user_id}`);
    expect(user.body.wallets).toHaveLength(5);
  });

  it('derives every chain from one seed: the exported keys open the same addresses', async () => {
    const { t, user_id } = await setup();
    const r = await recipient();
    for (const wallet_type of ['ethereum', 'solana', 'bitcoin', 'DOT', 'XLM'] as const) {
      const wallet = (await t.call('POST', '/v1/wallets/create', { wallet_type, user_id })).body;
      const exported = await t.call('POST', `/v1/wallets/${wallet.id}/export`, {
        recipient_public_key: r.publicKey,
      });
      expect(exported.status).toBe(200);
      expect(exported.body).toMatchObject({
        wallet_id: wallet.id,
        format: 'private_key',
        scheme: expect.stringContaining('X25519'),
      });
      const key = await r.open(exported.body);
      expect(chainModules[wallet_type].fromPrivateKey(key).address).toBe(wallet.public_address);
      expect(JSON.stringify(exported.body)).not.toContain(key);
    }
  });

  it('gives 20 concurrent creates of one (user, type) one wallet', async () => {
    const { t, user_id } = await setup();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.call('POST', '/v1/wallets/create', { wallet_type: 'solana', user_id }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
  });

  it('gives a new user’s concurrent creates of two types one wallet and one wallet.created each', async () => {
    const { t, latchkey, user_id } = await setup();
    const types = ['ethereum', 'XLM'] as const;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.call('POST', '/v1/wallets/create', { wallet_type: types[i % 2], user_id }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(2);
    const created = (await latchkey.events.list(t.app_id, { type: 'wallet.created' })).events;
    expect(created.filter((e) => e.data.user_id === user_id)).toHaveLength(2);
  });

  it('lists the App’s wallets or one user’s, a page at a time, keeping the wallets array', async () => {
    const { t, user_id } = await setup();
    const other = (await t.call('POST', '/v1/auth/users', {})).body.user_id;
    for (const wallet_type of ['ethereum', 'solana', 'XLM'] as const) {
      await t.call('POST', '/v1/wallets/create', { wallet_type, user_id });
      await t.call('POST', '/v1/wallets/create', { wallet_type, user_id: other });
    }
    const mine = await t.call('GET', `/v1/wallets/list?user_id=${user_id}`);
    expect(mine.body.wallets).toHaveLength(3);
    expect(mine.body.wallets.every((w: { user_id: string }) => w.user_id === user_id)).toBe(true);
    expect(mine.body.next_cursor).toBeNull();
    const seen: string[] = [];
    let cursor = '';
    do {
      const page = await t.call('GET', `/v1/wallets/list?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.wallets.map((w: { id: string }) => w.id));
      cursor = page.body.next_cursor ?? '';
    } while (cursor);
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    for (const bad of ['limit=0', 'limit=1001', 'limit=abc', 'extra=1']) {
      const res = await t.call('GET', `/v1/wallets/list?${bad}`);
      expect(res.status, bad).toBe(400);
      expectErrorShape(res);
    }
  });

  it('refuses unknown users, bad types, and another App’s wallets', async () => {
    const { t, user_id, latchkey } = await setup();
    expect(
      expectErrorShape(
        await t.call('POST', '/v1/wallets/create', { wallet_type: 'ethereum', user_id: 'user_nope' }),
      ).error_type,
    ).toBe('user_not_found');
    const badType = await t.call('POST', '/v1/wallets/create', { wallet_type: 'dogecoin', user_id });
    expect(expectErrorShape(badType)).toMatchObject({
      error_type: 'invalid_field',
      error_field: 'wallet_type',
    });
    const wallet = (await t.call('POST', '/v1/wallets/create', { wallet_type: 'solana', user_id })).body;
    const other = await testApp(latchkey);
    const tx = Buffer.from(legacyTx(new PublicKey(wallet.public_address))).toString('base64');
    const foreign = await other.call('POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
      sol_transaction: { transaction: tx, encoding: 'base64' },
    });
    expect(foreign.status).toBe(404);
    expect(expectErrorShape(foreign).error_type).toBe('wallet_not_found');
    expect((await other.call('GET', `/v1/wallets/list?user_id=${user_id}`)).body.wallets).toEqual([]);
    const r = await recipient();
    expect(
      (await other.call('POST', `/v1/wallets/${wallet.id}/export`, { recipient_public_key: r.publicKey }))
        .status,
    ).toBe(404);
    expect(
      (await t.call('POST', '/v1/wallets/create', { wallet_type: 'solana', user_id }, t.public_token)).status,
    ).toBe(403);
  });
});

describe('wallets/import', () => {
  it('imports a mnemonic by the standard path: the published address, default when the user has none', async () => {
    const { t, user_id } = await setup();
    const res = await t.call('POST', '/v1/wallets/import', {
      user_id,
      wallet_type: 'ethereum',
      mnemonic: `  ${ABANDON.toUpperCase()} `,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      public_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      is_imported: true,
      is_default: true,
    });
    expect((await t.call('POST', '/v1/wallets/create', { wallet_type: 'ethereum', user_id })).body.id).toBe(
      res.body.id,
    );
    const btc = await t.call('POST', '/v1/wallets/import', {
      user_id,
      wallet_type: 'bitcoin',
      mnemonic: ABANDON,
    });
    expect(btc.body.public_address).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    const xlm = await t.call('POST', '/v1/wallets/import', {
      user_id,
      wallet_type: 'XLM',
      mnemonic: ABANDON,
    });
    expect(xlm.body.public_address).toBe('GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX');
  });

  it('imports a private key as an extra wallet when a default exists, and refuses duplicates', async () => {
    const { t, user_id } = await setup();
    const created = (await t.call('POST', '/v1/wallets/create', { wallet_type: 'solana', user_id })).body;
    const kp = Keypair.generate();
    const res = await t.call('POST', '/v1/wallets/import', {
      user_id,
      wallet_type: 'solana',
      private_key: base58.encode(kp.secretKey),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      public_address: kp.publicKey.toBase58(),
      is_imported: true,
      is_default: false,
    });
    expect((await t.call('POST', '/v1/wallets/create', { wallet_type: 'solana', user_id })).body.id).toBe(
      created.id,
    );
    const dup = await t.call('POST', '/v1/wallets/import', {
      user_id,
      wallet_type: 'solana',
      private_key: base58.encode(kp.secretKey),
    });
    expect(dup.status).toBe(409);
    expect(expectErrorShape(dup).error_type).toBe('duplicate_wallet');
    // The imported key signs.
    const tx = Buffer.from(legacyTx(kp.publicKey)).toString('base64');
    const signed = await t.call('POST', `/v1/wallets/${res.body.id}/sign_transaction`, {
      sol_transaction: { transaction: tx, encoding: 'base64' },
    });
    expect(Transaction.from(Buffer.from(signed.body.signed_transaction, 'base64')).verifySignatures()).toBe(
      true,
    );
  });

  it('refuses a bad mnemonic or key, both or neither', async () => {
    const { t, user_id } = await setup();
    const badMnemonic = await t.call('POST', '/v1/wallets/import', {
      user_id,
      wallet_type: 'ethereum',
      mnemonic: ABANDON.replace('about', 'abandon'),
    });
    expect(expectErrorShape(badMnemonic)).toMatchObject({
      error_type: 'invalid_mnemonic',
      error_field: 'mnemonic',
    });
    const badKey = await t.call('POST', '/v1/wallets/import', {
      user_id,
      wallet_type: 'ethereum',
      private_key: '0x1234',
    });
    expect(expectErrorShape(badKey)).toMatchObject({
      error_type: 'invalid_private_key',
      error_field: 'private_key',
    });
    expect(
      (await t.call('POST', '/v1/wallets/import', { user_id, wallet_type: 'ethereum' })).body.error_type,
    ).toBe('missing_field');
    expect(
      (
        await t.call('POST', '/v1/wallets/import', {
          user_id,
          wallet_type: 'ethereum',
          mnemonic: ABANDON,
          private_key: `0x${'11'.repeat(32)}`,
        })
      ).status,
    ).toBe(400);
  });
});

describe('wallets/{id}/sign_transaction', () => {
  async function solanaWallet() {
    const s = await setup();
    const wallet = (
      await s.t.call('POST', '/v1/wallets/create', { wallet_type: 'solana', user_id: s.user_id })
    ).body;
    return { ...s, wallet, pubkey: new PublicKey(wallet.public_address) };
  }

  it('signs a legacy transaction: web3.js and tweetnacl verify it, the signature is the first one', async () => {
    const { t, wallet, pubkey } = await solanaWallet();
    const unsigned = legacyTx(pubkey);
    const res = await t.call('POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
      sol_transaction: { transaction: Buffer.from(unsigned).toString('base64'), encoding: 'base64' },
    });
    expect(res.status).toBe(200);
    expect(res.body.wallet).toMatchObject({
      ...wallet,
      wallet_client_type: 'latchkey',
      wallet_pk_id: expect.stringMatching(/^seed_/),
      delegated: false,
    });
    expect(res.body.wallet_id).toBe(wallet.id);
    const tx = Transaction.from(Buffer.from(res.body.signed_transaction, 'base64'));
    expect(tx.verifySignatures()).toBe(true);
    expect(base58.encode(tx.signatures[0]!.signature!)).toBe(res.body.signature);
    expect(
      nacl.sign.detached.verify(tx.serializeMessage(), base58.decode(res.body.signature), pubkey.toBytes()),
    ).toBe(true);
  });

  it('signs a v0 transaction, in base58 too', async () => {
    const { t, wallet, pubkey } = await solanaWallet();
    const unsigned = v0Tx(pubkey);
    const res = await t.call('POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
      sol_transaction: { transaction: base58.encode(unsigned), encoding: 'base58' },
    });
    expect(res.status).toBe(200);
    const tx = VersionedTransaction.deserialize(base58.decode(res.body.signed_transaction));
    expect(base58.encode(tx.signatures[0]!)).toBe(res.body.signature);
    expect(nacl.sign.detached.verify(tx.message.serialize(), tx.signatures[0]!, pubkey.toBytes())).toBe(true);
  });

  it('refuses non-solana wallets, undecodable bytes, unknown encodings and transactions the wallet does not sign', async () => {
    const { t, wallet, user_id } = await solanaWallet();
    const eth = (await t.call('POST', '/v1/wallets/create', { wallet_type: 'ethereum', user_id })).body;
    const tx = Buffer.from(legacyTx(new PublicKey(wallet.public_address))).toString('base64');
    const cases: Array<[string, unknown, string]> = [
      [eth.id, { sol_transaction: { transaction: tx, encoding: 'base64' } }, 'wallet_type_mismatch'],
      [
        wallet.id,
        { sol_transaction: { transaction: '!!!not base64!!!', encoding: 'base64' } },
        'invalid_transaction',
      ],
      [
        wallet.id,
        {
          sol_transaction: { transaction: Buffer.from('hello world').toString('base64'), encoding: 'base64' },
        },
        'invalid_transaction',
      ],
      [wallet.id, { sol_transaction: { transaction: tx, encoding: 'hex' } }, 'invalid_field'],
      [
        wallet.id,
        {
          sol_transaction: {
            transaction: Buffer.from(legacyTx(Keypair.generate().publicKey)).toString('base64'),
            encoding: 'base64',
          },
        },
        'wallet_not_a_signer',
      ],
      [wallet.id, { sol_transaction: {} }, 'missing_field'],
    ];
    for (const [id, body, errorType] of cases) {
      const res = await t.call('POST', `/v1/wallets/${id}/sign_transaction`, body);
      expect(res.status, errorType).toBe(400);
      expect(expectErrorShape(res).error_type).toBe(errorType);
    }
    expect((await t.call('POST', '/v1/wallets/wallet_unknown/sign_transaction', cases[0]![1])).status).toBe(
      404,
    );
  });
});

describe('custody at rest', () => {
  it('keeps seeds and imported keys sealed; a wrong master key does not open them', async () => {
    const storage = memoryStorage();
    const vault = localKeyVault({ keys: { 1: Buffer.alloc(32, 1).toString('base64url') }, current: 1 });
    const latchkey = createLatchkey({ storage, secret: TEST_SECRET, keyVault: vault });
    const t = await testApp(latchkey);
    const user_id = (await t.call('POST', '/v1/auth/users', {})).body.user_id;
    const sol = (await t.call('POST', '/v1/wallets/create', { wallet_type: 'solana', user_id })).body;
    const kp = Keypair.generate();
    await t.call('POST', '/v1/wallets/import', {
      user_id,
      wallet_type: 'solana',
      private_key: base58.encode(kp.secretKey),
    });
    const seed = await storage.seeds.get(t.app_id, user_id);
    const imported = await storage.wallets.findByAddress(t.app_id, 'solana', kp.publicKey.toBase58());
    const dump = JSON.stringify({
      seed,
      imported,
      wallets: await storage.wallets.list(t.app_id, { limit: 100 }),
    });
    expect(seed!.sealed_entropy).toMatch(/^lkv1\./);
    expect(dump).not.toContain(base58.encode(kp.secretKey));
    expect(dump).not.toContain(Buffer.from(kp.secretKey.slice(0, 32)).toString('hex'));
    expect(dump).not.toContain(Buffer.from(kp.secretKey.slice(0, 32)).toString('base64'));

    const wrongVault = localKeyVault({ keys: { 1: Buffer.alloc(32, 2).toString('base64url') }, current: 1 });
    const wrong = createLatchkey({
      storage,
      secret: TEST_SECRET,
      keyVault: wrongVault,
      onInternalError: () => {},
    });
    const res = await wrong.fetch(
      new Request(`http://l.test/v1/wallets/${sol.id}/sign_transaction`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.secret_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          sol_transaction: {
            transaction: Buffer.from(legacyTx(new PublicKey(sol.public_address))).toString('base64'),
            encoding: 'base64',
          },
        }),
      }),
    );
    expect(res.status).toBe(500);
    expect((await res.json()).error_type).toBe('vault_open_failed');
  });
});
