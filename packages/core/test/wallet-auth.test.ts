import { memoryStorage } from '@latchkey/memory';
import { base58 } from '@scure/base';
import { Keypair, PublicKey } from '@solana/web3.js';
import { Wallet } from 'ethers';
import { SiweMessage } from 'siwe';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import type { Storage } from '../src/index.js';
import { expectErrorShape, type TestApp, testApp, testLatchkey } from './helpers.js';

const CHALLENGE = '/v1/auth/wallets/challenge';
const VERIFY = '/v1/auth/wallets/verify';

// Fixed keys, so failures reproduce; the clients are independent of Latchkey's own code.
const alice = new Wallet(`0x${'a1'.repeat(32)}`);
const bob = new Wallet(`0x${'b2'.repeat(32)}`);
const solanaSeed = new Uint8Array(32).fill(7);
const solanaKeys = nacl.sign.keyPair.fromSeed(solanaSeed);
const solanaAddress = new PublicKey(solanaKeys.publicKey).toBase58();

const hexToBase64 = (hex: string) => Buffer.from(hex.slice(2), 'hex').toString('base64');
const signEthereum = async (wallet: Wallet, message: string) =>
  hexToBase64(await wallet.signMessage(message));
const signSolana = (message: string, secretKey = solanaKeys.secretKey) =>
  base58.encode(nacl.sign.detached(new TextEncoder().encode(message), secretKey));

const errorType = (res: Parameters<typeof expectErrorShape>[0]) => expectErrorShape(res).error_type;

const clockOf = new WeakMap<TestApp, { advance(seconds: number): void }>();

async function setup(settings: Record<string, unknown> = {}) {
  const { latchkey, clock } = testLatchkey();
  const t = await testApp(latchkey);
  clockOf.set(t, clock);
  if (Object.keys(settings).length) await latchkey.apps.updateSettings(t.app_id, settings);
  return { t, clock, latchkey };
}

/**
 * Asks for a challenge a second after the last one, as a person would: a verify without its
 * nonce checks the challenge issued last, which needs them apart in time.
 */
async function challenge(t: TestApp, body: Record<string, unknown>, key: string | null = t.public_token) {
  clockOf.get(t)?.advance(1);
  const res = await t.call('POST', CHALLENGE, body, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { challenge: string; nonce: string; public_address: string; expires_at: number };
}

describe('ethereum sign-in (EIP-4361)', () => {
  it('issues an EIP-4361 message that siwe parses, signed by ethers it opens a session', async () => {
    const { t, clock } = await setup();
    const c = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address.toLowerCase() });
    const parsed = new SiweMessage(c.challenge);
    expect(parsed).toMatchObject({
      domain: 'localhost',
      address: alice.address, // EIP-55, whatever case was sent
      uri: 'http://localhost',
      version: '1',
      chainId: 1,
      nonce: c.nonce,
      statement: 'Sign in with your wallet.',
      issuedAt: new Date(clock.now()).toISOString().replace('.000Z', 'Z'),
    });
    expect(Date.parse(parsed.expirationTime!) / 1000).toBe(c.expires_at);
    expect(c.expires_at - clock.now() / 1000).toBe(300);
    expect(c.nonce).toMatch(/^[A-Za-z0-9]{16,}$/);

    const signature = await signEthereum(alice, c.challenge);
    // siwe, through ethers, agrees that the message and signature are alice's.
    const siwe = await parsed.verify({ signature: `0x${Buffer.from(signature, 'base64').toString('hex')}` });
    expect(siwe.success).toBe(true);

    const res = await t.call(
      'POST',
      VERIFY,
      { wallet_type: 'ethereum', public_address: alice.address, signature, session_expires_in: 60 },
      t.public_token,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      user_created: true,
      wallet: {
        public_address: alice.address,
        wallet_type: 'ethereum',
        verified: true,
        is_read_only: true,
        is_imported: false,
        is_default: false,
      },
      session: {
        user_id: res.body.user_id,
        factors: [
          {
            type: 'signature_challenge',
            delivery_channel: 'crypto_wallet',
            method: { method_id: res.body.wallet_id, method_type: 'wallet', public_address: alice.address },
          },
        ],
      },
    });
    expect(res.body.wallet.id).toBe(res.body.wallet_id);
    expect(res.body.wallet.user_id).toBe(res.body.user_id);
    const session = await t.call(
      'POST',
      '/v1/auth/sessions/authenticate',
      { session_token: res.body.session_token },
      t.public_token,
    );
    expect(session.status).toBe(200);
    expect(session.body.user_id).toBe(res.body.user_id);
    const stored = await t.latchkey.storage.wallets.get(t.app_id, res.body.wallet_id);
    expect(stored).toMatchObject({ key_source: 'external', sealed_private_key: null, key_id: null });
  });

  it('accepts the 0x-hex signature, and an all-caps address, as the same wallet and user', async () => {
    const { t } = await setup();
    const first = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    const one = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: alice.address.toLowerCase(),
      signature: await alice.signMessage(first.challenge),
    });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    const upper = `0x${alice.address.slice(2).toUpperCase()}`;
    const second = await challenge(t, { wallet_type: 'ethereum', public_address: upper });
    expect(second.public_address).toBe(alice.address);
    const two = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: upper,
      signature: await signEthereum(alice, second.challenge),
      nonce: second.nonce,
    });
    expect(two.status, JSON.stringify(two.body)).toBe(200);
    expect(two.body).toMatchObject({
      user_id: one.body.user_id,
      wallet_id: one.body.wallet_id,
      user_created: false,
    });
    expect(two.body.session).toBeUndefined(); // no session_expires_in, no session
    const wallets = await t.call('GET', `/v1/wallets/list?user_id=${one.body.user_id}`);
    expect(wallets.body.wallets).toHaveLength(1);
  });

  it('refuses the same signature replayed, with or without the nonce', async () => {
    const { t } = await setup();
    const c = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    const body = {
      wallet_type: 'ethereum',
      public_address: alice.address,
      signature: await signEthereum(alice, c.challenge),
    };
    expect((await t.call('POST', VERIFY, body, t.public_token)).status).toBe(200);
    const again = await t.call('POST', VERIFY, body, t.public_token);
    expect(again.status).toBe(401);
    expect(errorType(again)).toBe('wallet_challenge_used');
    expect(errorType(await t.call('POST', VERIFY, { ...body, nonce: c.nonce }))).toBe(
      'wallet_challenge_used',
    );
  });

  it('refuses a signature over a tampered message, and that attempt does not spend the challenge', async () => {
    const { t } = await setup();
    const c = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    const tampered = c.challenge.replace('localhost wants', 'evil.example wants');
    expect(tampered).not.toBe(c.challenge);
    const bad = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: alice.address,
      signature: await signEthereum(alice, tampered),
      nonce: c.nonce,
    });
    expect(bad.status).toBe(401);
    expect(errorType(bad)).toBe('invalid_signature');
    // Only a valid proof spends the challenge: the owner's right signature still signs in, once.
    const good = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: alice.address,
      signature: await signEthereum(alice, c.challenge),
      nonce: c.nonce,
    });
    expect(good.status).toBe(200);
    const replay = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: alice.address,
      signature: await signEthereum(alice, c.challenge),
      nonce: c.nonce,
    });
    expect(errorType(replay)).toBe('wallet_challenge_used');
  });

  it("garbage signatures without a nonce (the public token is enough) cannot void an address's latest challenge", async () => {
    const { t } = await setup();
    const c = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    const garbage = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.call(
          'POST',
          VERIFY,
          {
            wallet_type: 'ethereum',
            public_address: alice.address,
            signature: Buffer.alloc(65, i + 1).toString('base64'),
          },
          t.public_token,
        ),
      ),
    );
    for (const res of garbage) {
      expect(res.status).toBe(401);
      expect(errorType(res)).toBe('invalid_signature');
    }
    const owner = await t.call(
      'POST',
      VERIFY,
      {
        wallet_type: 'ethereum',
        public_address: alice.address,
        signature: await signEthereum(alice, c.challenge),
      },
      t.public_token,
    );
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
  });

  it('refuses an expired challenge, from its Expiration Time on', async () => {
    const { t, clock } = await setup({ wallet_auth: { challenge_ttl_seconds: 60 } });
    const c = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    expect(new SiweMessage(c.challenge).expirationTime).toBe(
      new Date(c.expires_at * 1000).toISOString().replace('.000Z', 'Z'),
    );
    clock.advance(60);
    const res = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: alice.address,
      signature: await signEthereum(alice, c.challenge),
    });
    expect(res.status).toBe(401);
    expect(errorType(res)).toBe('wallet_challenge_expired');
  });

  it("refuses another address's verify of a challenge, and another key's signature", async () => {
    const { t } = await setup();
    const c = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    const otherAddress = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: bob.address,
      signature: await signEthereum(bob, c.challenge),
      nonce: c.nonce,
    });
    expect(otherAddress.status).toBe(401);
    expect(errorType(otherAddress)).toBe('wallet_address_mismatch');

    const d = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    const otherKey = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: alice.address,
      signature: await signEthereum(bob, d.challenge),
    });
    expect(otherKey.status).toBe(401);
    expect(errorType(otherKey)).toBe('invalid_signature');
    // A signature for no challenge of this address: nothing was issued for bob.
    const none = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: bob.address,
      signature: await signEthereum(bob, d.challenge),
    });
    expect(errorType(none)).toBe('wallet_challenge_not_found');
  });

  it("checks the challenge issued last when no nonce is sent, and any of the address's live ones by nonce", async () => {
    const { t } = await setup();
    const first = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    const second = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    const byNonce = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: alice.address,
      signature: await signEthereum(alice, first.challenge),
      nonce: first.nonce,
    });
    expect(byNonce.status, JSON.stringify(byNonce.body)).toBe(200);
    const latest = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: alice.address,
      signature: await signEthereum(alice, second.challenge),
    });
    expect(latest.status, JSON.stringify(latest.body)).toBe(200);
    expect(latest.body.user_id).toBe(byNonce.body.user_id);
  });

  it("never lets one App's challenge verify in another", async () => {
    const { t, latchkey } = await setup();
    const other = await testApp(latchkey);
    const c = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    const res = await other.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: alice.address,
      signature: await signEthereum(alice, c.challenge),
      nonce: c.nonce,
    });
    expect(errorType(res)).toBe('wallet_challenge_not_found');
    // Still unspent in its own App.
    const own = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: alice.address,
      signature: await signEthereum(alice, c.challenge),
      nonce: c.nonce,
    });
    expect(own.status).toBe(200);
  });

  it("writes the App's domain, URI, statement and chain id into the message", async () => {
    const { t } = await setup({
      wallet_auth: {
        domain: 'app.example.com:8443',
        statement: 'Sign in to Example (no fees).',
        ethereum_chain_id: 137,
      },
    });
    const c = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    expect(new SiweMessage(c.challenge)).toMatchObject({
      domain: 'app.example.com:8443',
      uri: 'https://app.example.com:8443',
      statement: 'Sign in to Example (no fees).',
      chainId: 137,
    });
    await t.latchkey.apps.updateSettings(t.app_id, {
      wallet_auth: { uri: 'https://app.example.com/login', statement: '' },
    });
    const d = await t.latchkey.walletAuth.challenge(t.app_id, {
      wallet_type: 'ethereum',
      public_address: alice.address,
    });
    const parsed = new SiweMessage(d.challenge);
    expect(parsed.uri).toBe('https://app.example.com/login');
    expect(parsed.statement).toBeUndefined();
    expect(d.challenge).toContain(`${alice.address}\n\n\nURI: https://app.example.com/login\n`);
    for (const [domain, uri] of [
      ['localhost:5173', 'http://localhost:5173'],
      ['127.0.0.1:3000', 'http://127.0.0.1:3000'],
      ['localhost.example.com', 'https://localhost.example.com'],
    ]) {
      await t.latchkey.apps.updateSettings(t.app_id, { wallet_auth: { domain } });
      const e = await t.latchkey.walletAuth.challenge(t.app_id, {
        wallet_type: 'ethereum',
        public_address: alice.address,
      });
      expect(new SiweMessage(e.challenge)).toMatchObject({ domain, uri });
    }
  });
});

describe('solana sign-in', () => {
  it('issues a Sign In With Solana message; signed with tweetnacl it opens a session', async () => {
    const { t, clock } = await setup();
    expect(Keypair.fromSeed(solanaSeed).publicKey.toBase58()).toBe(solanaAddress);
    const c = await challenge(t, { wallet_type: 'solana', public_address: solanaAddress });
    const issued = new Date(clock.now()).toISOString().replace('.000Z', 'Z');
    const expires = new Date(c.expires_at * 1000).toISOString().replace('.000Z', 'Z');
    expect(c.challenge).toBe(
      [
        'localhost wants you to sign in with your Solana account:',
        solanaAddress,
        '',
        'Sign in with your wallet.',
        '',
        'URI: http://localhost',
        'Version: 1',
        'Chain ID: mainnet',
        `Nonce: ${c.nonce}`,
        `Issued At: ${issued}`,
        `Expiration Time: ${expires}`,
      ].join('\n'),
    );
    const res = await t.call(
      'POST',
      VERIFY,
      {
        wallet_type: 'solana',
        public_address: solanaAddress,
        signature: signSolana(c.challenge),
        session_expires_in: 30,
        device_fingerprint: { ip: '203.0.113.9', user_agent: 'Phantom/1' },
      },
      t.public_token,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      user_created: true,
      wallet: { public_address: solanaAddress, wallet_type: 'solana', is_read_only: true, verified: true },
      session: { device_fingerprint: { ip: '203.0.113.9', user_agent: 'Phantom/1' } },
    });
    expect(res.body.session.expires_at - res.body.session.started_at).toBe(30 * 60);

    // A read-only wallet: Latchkey holds no key to sign with.
    const sign = await t.call('POST', `/v1/wallets/${res.body.wallet_id}/sign_transaction`, {
      sol_transaction: { transaction: 'AAAA', encoding: 'base64' },
    });
    expect(errorType(sign)).toBe('wallet_read_only');
  });

  it('refuses a replay, a tampered message, an expired challenge and another key', async () => {
    const { t, clock } = await setup();
    const verify = (signature: string, nonce?: string) =>
      t.call('POST', VERIFY, { wallet_type: 'solana', public_address: solanaAddress, signature, nonce });

    const c = await challenge(t, { wallet_type: 'solana', public_address: solanaAddress });
    const signature = signSolana(c.challenge);
    expect((await verify(signature)).status).toBe(200);
    expect(errorType(await verify(signature))).toBe('wallet_challenge_used');

    const d = await challenge(t, { wallet_type: 'solana', public_address: solanaAddress });
    expect(
      errorType(await verify(signSolana(d.challenge.replace('Chain ID: mainnet', 'Chain ID: devnet')))),
    ).toBe('invalid_signature');
    // The failed attempt spent nothing: the right signature signs in, once.
    expect((await verify(signSolana(d.challenge), d.nonce)).status).toBe(200);
    expect(errorType(await verify(signSolana(d.challenge), d.nonce))).toBe('wallet_challenge_used');

    const e = await challenge(t, { wallet_type: 'solana', public_address: solanaAddress });
    clock.advance(301);
    expect(errorType(await verify(signSolana(e.challenge)))).toBe('wallet_challenge_expired');

    const f = await challenge(t, { wallet_type: 'solana', public_address: solanaAddress });
    const stranger = nacl.sign.keyPair();
    expect(errorType(await verify(signSolana(f.challenge, stranger.secretKey)))).toBe('invalid_signature');
  });
});

describe('wallets and users', () => {
  it('two concurrent verifies of two challenges for one new address end with one user and one wallet', async () => {
    const base = memoryStorage();
    const usersInserted: string[] = [];
    // Records every user a transaction inserts, to show the loser's was rolled back.
    const storage: Storage = {
      ...base,
      transaction: (fn) =>
        base.transaction((tx) =>
          fn({
            ...tx,
            users: {
              ...tx.users,
              insert: async (u) => {
                usersInserted.push(u.id);
                return tx.users.insert(u);
              },
            },
          }),
        ),
    };
    const { latchkey } = testLatchkey({ storage });
    const t = await testApp(latchkey);
    for (const [type, address, sign] of [
      ['ethereum', alice.address, (m: string) => signEthereum(alice, m)],
      ['solana', solanaAddress, async (m: string) => signSolana(m)],
    ] as const) {
      const challenges = [
        await challenge(t, { wallet_type: type, public_address: address }),
        await challenge(t, { wallet_type: type, public_address: address }),
      ];
      const results = await Promise.all(
        challenges.map(async (c) =>
          t.call('POST', VERIFY, {
            wallet_type: type,
            public_address: address,
            signature: await sign(c.challenge),
            nonce: c.nonce,
            session_expires_in: 10,
          }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      const [a, b] = results.map((r) => r.body);
      expect(a.user_id).toBe(b.user_id);
      expect(a.wallet_id).toBe(b.wallet_id);
      expect([a.user_created, b.user_created].sort()).toEqual([false, true]);
      expect(a.session.id).not.toBe(b.session.id);
    }
    expect(usersInserted).toHaveLength(4);
    const surviving = await Promise.all(usersInserted.map((id) => storage.users.get(t.app_id, id)));
    expect(surviving.filter(Boolean)).toHaveLength(2);
    expect((await latchkey.wallets.list(t.app_id, {})).wallets).toHaveLength(2);
  });

  it("adds the wallet to the challenge's user_id (secret key only), and refuses another user's address", async () => {
    const { t } = await setup();
    const user = await t.call('POST', '/v1/auth/users', { email: 'ada@example.com' });
    const user_id = user.body.user_id as string;

    const publicTry = await t.call(
      'POST',
      CHALLENGE,
      { wallet_type: 'ethereum', public_address: alice.address, user_id },
      t.public_token,
    );
    expect(publicTry.status).toBe(403);
    expect(errorType(publicTry)).toBe('secret_key_required');
    const unknown = await t.call('POST', CHALLENGE, {
      wallet_type: 'ethereum',
      public_address: alice.address,
      user_id: 'user_nobody',
    });
    expect(errorType(unknown)).toBe('user_not_found');

    const c = await challenge(
      t,
      { wallet_type: 'ethereum', public_address: alice.address, user_id },
      t.secret_key,
    );
    // The proof itself may come from the browser, with the public token.
    const linked = await t.call(
      'POST',
      VERIFY,
      {
        wallet_type: 'ethereum',
        public_address: alice.address,
        signature: await signEthereum(alice, c.challenge),
      },
      t.public_token,
    );
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    expect(linked.body).toMatchObject({ user_id, user_created: false, wallet: { user_id } });

    // bob signs in on his own first; then nobody may add his address to ada.
    const b = await challenge(t, { wallet_type: 'ethereum', public_address: bob.address });
    const bobIn = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: bob.address,
      signature: await signEthereum(bob, b.challenge),
    });
    expect(bobIn.body.user_id).not.toBe(user_id);
    const steal = await challenge(
      t,
      { wallet_type: 'ethereum', public_address: bob.address, user_id },
      t.secret_key,
    );
    const refused = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: bob.address,
      signature: await signEthereum(bob, steal.challenge),
    });
    expect(refused.status).toBe(409);
    expect(errorType(refused)).toBe('wallet_belongs_to_another_user');
  });

  it("signs in the owner of an embedded wallet whose key signs (an exported key in the user's own wallet)", async () => {
    const { t } = await setup();
    const user = await t.call('POST', '/v1/auth/users', { email: 'grace@example.com' });
    const imported = await t.call('POST', '/v1/wallets/import', {
      user_id: user.body.user_id,
      wallet_type: 'ethereum',
      private_key: alice.privateKey,
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const c = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    const res = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: alice.address,
      signature: await signEthereum(alice, c.challenge),
    });
    expect(res.body).toMatchObject({
      user_id: user.body.user_id,
      wallet_id: imported.body.id,
      user_created: false,
      wallet: { is_read_only: false, is_imported: true },
    });
  });

  it('extends the session sent when it is the same user, per the OTP session rules', async () => {
    const { t } = await setup();
    const signIn = async (fields: Record<string, unknown>) => {
      const c = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
      return t.call('POST', VERIFY, {
        wallet_type: 'ethereum',
        public_address: alice.address,
        signature: await signEthereum(alice, c.challenge),
        ...fields,
      });
    };
    const first = await signIn({ session_expires_in: 10 });
    const second = await signIn({ session_token: first.body.session_token, session_expires_in: 120 });
    expect(second.status).toBe(200);
    expect(second.body.session.id).toBe(first.body.session.id);
    // The same method again renews its factor rather than adding one (one per type and method).
    expect(second.body.session.factors).toHaveLength(1);
    const third = await signIn({ session_jwt: second.body.session_jwt });
    expect(third.body.session.id).toBe(first.body.session.id);
  });
});

describe('bad input', () => {
  it('refuses malformed addresses and signatures with a 400, without spending the challenge', async () => {
    const { t } = await setup();
    for (const [wallet_type, public_address] of [
      ['ethereum', '0x1234'],
      ['ethereum', alice.address.replace(/[a-f]/, (ch) => ch.toUpperCase())], // a broken EIP-55 checksum
      ['ethereum', solanaAddress],
      ['solana', alice.address],
      ['solana', '0OIl'.repeat(8)],
    ] as const) {
      const res = await t.call('POST', CHALLENGE, { wallet_type, public_address });
      expect(res.status, public_address).toBe(400);
      expect(expectErrorShape(res)).toMatchObject({
        error_type: 'invalid_wallet_address',
        error_field: 'public_address',
      });
    }
    expect(
      errorType(await t.call('POST', CHALLENGE, { wallet_type: 'bitcoin', public_address: 'bc1q' })),
    ).toBe('invalid_field');

    const c = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    const good = await alice.signMessage(c.challenge);
    for (const signature of [
      good.slice(0, -2), // 64 bytes
      `${good}00`, // 66 bytes
      'not base64 !',
      base58.encode(new Uint8Array(65)), // base58 is solana's, not ethereum's
    ]) {
      const res = await t.call('POST', VERIFY, {
        wallet_type: 'ethereum',
        public_address: alice.address,
        signature,
      });
      expect(res.status, signature).toBe(400);
      expect(expectErrorShape(res)).toMatchObject({ error_type: 'invalid_field', error_field: 'signature' });
    }
    const wrongV = Buffer.from(good.slice(2), 'hex');
    wrongV[64] = 29;
    expect(
      errorType(
        await t.call('POST', VERIFY, {
          wallet_type: 'ethereum',
          public_address: alice.address,
          signature: wrongV.toString('base64'),
        }),
      ),
    ).toBe('invalid_signature');
    // That verify reached the challenge and spent it; the 400s before it did not.
    const d = await challenge(t, { wallet_type: 'ethereum', public_address: alice.address });
    const ok = await t.call('POST', VERIFY, {
      wallet_type: 'ethereum',
      public_address: alice.address,
      signature: hexToBase64(await alice.signMessage(d.challenge)).replace(/=+$/, ''), // unpadded base64 too
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const solanaBad = await t.call('POST', VERIFY, {
      wallet_type: 'solana',
      public_address: solanaAddress,
      signature: hexToBase64(good),
    });
    expect(expectErrorShape(solanaBad)).toMatchObject({
      error_type: 'invalid_field',
      error_field: 'signature',
    });
  });

  it('needs a challenge: a verify for an address never challenged is not_found', async () => {
    const { t } = await setup();
    const res = await t.call('POST', VERIFY, {
      wallet_type: 'solana',
      public_address: solanaAddress,
      signature: signSolana('anything'),
    });
    expect(res.status).toBe(401);
    expect(errorType(res)).toBe('wallet_challenge_not_found');
    expect(
      errorType(
        await t.call('POST', VERIFY, {
          wallet_type: 'solana',
          public_address: solanaAddress,
          signature: signSolana('anything'),
          nonce: 'NoSuchNonce1',
        }),
      ),
    ).toBe('wallet_challenge_not_found');
  });
});
