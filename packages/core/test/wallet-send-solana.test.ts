import { memoryStorage } from '@latchkey/memory';
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSendRow } from '../src/wallet-transactions/new-send-row.js';
import { expectErrorShape, type TestApp, testApp, testLatchkey } from './helpers.js';
import { expectOneSendRecorded } from './send-records.js';
import {
  LAMPORTS_PER_SIGNATURE,
  mintData,
  type SolanaPeer,
  startSolanaPeer,
  TOKEN_PROGRAM,
  tokenAccountData,
  tokenAmount,
} from './solana-rpc-peer.js';
import { type Backend, storageBackends } from './storage-backends.js';

/**
 * Sending from custodial solana wallets against real Solana execution: LiteSVM behind a JSON-RPC
 * server speaking the wire format of a node. LiteSVM is the oracle: balances, token amounts and
 * what it received are read from it, not from Latchkey.
 */
const SOL = 1_000_000_000n;
const USDC_MAINNET = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const UNSET_BLOCKHASH = '11111111111111111111111111111111';

let peer: SolanaPeer;

beforeAll(async () => {
  peer = await startSolanaPeer();
});

afterAll(async () => {
  await peer?.stop();
});

const lamportsOf = (address: string) => peer.svm.getBalance(address as never) ?? 0n;
const newAddress = () => Keypair.generate().publicKey.toBase58();

describe.each(storageBackends())('sending from a solana wallet on $name storage', (backend: Backend) => {
  let opened: Awaited<ReturnType<Backend['open']>>;
  let latchkey: ReturnType<typeof testLatchkey>['latchkey'];
  let clock: ReturnType<typeof testLatchkey>['clock'];

  beforeAll(async () => {
    opened = await backend.open();
    ({ latchkey, clock } = testLatchkey({
      storage: opened.storage,
      // The chain's 502s (a lost broadcast) are reported as internal errors: kept quiet here.
      onInternalError: () => {},
      chains: { solana: { mainnet: peer.url, testnet: peer.url }, cacheSeconds: 0 },
    }));
  });

  afterAll(async () => {
    await opened?.dispose();
  });

  let users = 0;
  async function walletIn(t: TestApp, walletType = 'solana', lamports = 10n * SOL) {
    const user = await t.call('POST', '/v1/auth/users', { email: `s${users++}@example.com` });
    const res = await t.call('POST', '/v1/wallets/create', {
      user_id: user.body.user_id,
      wallet_type: walletType,
    });
    expect(res.status).toBe(200);
    const wallet = res.body as { id: string; public_address: string };
    if (walletType === 'solana') peer.svm.airdrop(wallet.public_address as never, lamports as never);
    return wallet;
  }

  async function fundedApp() {
    const t = await testApp(latchkey);
    const wallet = await walletIn(t);
    const send = (body: Record<string, unknown>) =>
      t.call('POST', `/v1/wallets/${wallet.id}/send_transaction`, body);
    const read = (id: string) => t.call('GET', `/v1/wallets/${wallet.id}/transactions/${id}`);
    const balance = (token: string) =>
      t.call('POST', '/v1/wallets/balance', { wallet_id: wallet.id, token_symbol: token });
    return { t, wallet, send, read, balance };
  }

  it('sol_transfer: builds, signs, sends; it confirms and both balances move', async () => {
    const { t, wallet, send, read, balance } = await fundedApp();
    const to = newAddress();
    const before = lamportsOf(wallet.public_address);
    const res = await send({ sol_transfer: { to, lamports: '1234567' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'submitted', nonce: null });
    expect(res.body.transaction_hash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);

    // The oracle: LiteSVM executed it.
    expect(lamportsOf(to)).toBe(1234567n);
    const followed = await read(res.body.transaction_id);
    expect(followed.status).toBe(200);
    expect(followed.body).toMatchObject({
      status: 'confirmed',
      nonce: null,
      to,
      value: '1234567',
      gas_limit: null,
      fee: String(LAMPORTS_PER_SIGNATURE),
      error: null,
    });
    expect(followed.body.chain_id).toBe('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
    expect(Number(followed.body.block_number)).toBeGreaterThan(0);
    expect(lamportsOf(wallet.public_address)).toBe(before - 1234567n - LAMPORTS_PER_SIGNATURE);

    // wallets/balance reads the same chain through the same endpoint.
    const read2 = await balance('solana');
    expect(read2.status).toBe(200);
    const expected = before - 1234567n - LAMPORTS_PER_SIGNATURE;
    expect(read2.body.balance).toBe(
      `${expected / SOL}.${(expected % SOL).toString().padStart(9, '0')}`.replace(/\.?0+$/, ''),
    );

    const list = await t.call('GET', `/v1/wallets/${wallet.id}/transactions`);
    expect(list.body.transactions.map((x: { id: string }) => x.id)).toEqual([res.body.transaction_id]);
    const events = await t.call('GET', '/v1/events?limit=100');
    const types = events.body.events.map((e: { type: string }) => e.type);
    expect(types).toContain('wallet.transaction.sent');
    expect(types).toContain('wallet.transaction.confirmed');
  });

  it('sol_transaction: an SPL token transfer with the blockhash left to Latchkey confirms, tokens move', async () => {
    const { wallet, send, read, balance } = await fundedApp();
    const svm = peer.svm;
    const walletKey = new PublicKey(wallet.public_address);
    const mint = new PublicKey(USDC_MAINNET);
    const rent = svm.minimumBalanceForRentExemption(165n);
    if (!svm.getAccount(USDC_MAINNET as never).exists)
      svm.setAccount({
        address: USDC_MAINNET,
        data: mintData(Keypair.generate().publicKey.toBytes(), 10n ** 12n, 6),
        executable: false,
        lamports: svm.minimumBalanceForRentExemption(82n),
        programAddress: TOKEN_PROGRAM,
        space: 82n,
      } as never);
    const source = Keypair.generate().publicKey;
    const recipient = Keypair.generate().publicKey;
    const destination = Keypair.generate().publicKey;
    for (const [account, owner, amount] of [
      [source, walletKey, 5_000_000n],
      [destination, recipient, 0n],
    ] as const)
      svm.setAccount({
        address: account.toBase58(),
        data: tokenAccountData(mint.toBytes(), owner.toBytes(), amount),
        executable: false,
        lamports: rent,
        programAddress: TOKEN_PROGRAM,
        space: 165n,
      } as never);
    const data = Buffer.alloc(9);
    data[0] = 3; // Transfer
    data.writeBigUInt64LE(1_500_000n, 1);
    const tx = new Transaction({ feePayer: walletKey, recentBlockhash: UNSET_BLOCKHASH }).add(
      new TransactionInstruction({
        programId: new PublicKey(TOKEN_PROGRAM),
        keys: [
          { pubkey: source, isSigner: false, isWritable: true },
          { pubkey: destination, isSigner: false, isWritable: true },
          { pubkey: walletKey, isSigner: true, isWritable: false },
        ],
        data,
      }),
    );
    const serialized = tx.serialize({ requireAllSignatures: false, verifySignatures: false });
    const res = await send({
      sol_transaction: { transaction: serialized.toString('base64'), encoding: 'base64' },
    });
    expect(res.status).toBe(200);
    expect(tokenAmount(svm, source.toBase58())).toBe(3_500_000n);
    expect(tokenAmount(svm, destination.toBase58())).toBe(1_500_000n);
    const followed = await read(res.body.transaction_id);
    expect(followed.body).toMatchObject({ status: 'confirmed', to: null, value: '0' });
    const usdc = await balance('USDC');
    expect(usdc.status).toBe(200);
    expect(usdc.body.balance).toBe('3.5');
  });

  it("keeps the caller's blockhash; base58 works too", async () => {
    const { wallet, send } = await fundedApp();
    const to = newAddress();
    const tx = new Transaction({
      feePayer: new PublicKey(wallet.public_address),
      recentBlockhash: peer.svm.latestBlockhash(),
    }).add(
      SystemProgram.transfer({
        fromPubkey: new PublicKey(wallet.public_address),
        toPubkey: new PublicKey(to),
        lamports: 1_000_777,
      }),
    );
    const { base58 } = await import('@scure/base');
    const bytes = tx.serialize({ requireAllSignatures: false, verifySignatures: false });
    const received = peer.received.length;
    const res = await send({ sol_transaction: { transaction: base58.encode(bytes), encoding: 'base58' } });
    expect(res.status).toBe(200);
    expect(lamportsOf(to)).toBe(1_000_777n);
    const sent = Transaction.from(Buffer.from(peer.received[received]!, 'base64'));
    expect(sent.recentBlockhash).toBe(peer.svm.latestBlockhash());
  });

  it('a send the policies refuse is not sent, and the refusal is in the audit trail', async () => {
    const { t, wallet, send } = await fundedApp();
    const policy = await t.call('POST', '/v1/wallets/policies', {
      name: 'Small payments',
      wallet_id: wallet.id,
      rules: [{ kind: 'solana_max_lamports', max_lamports: '2000000' }],
    });
    expect(policy.status).toBe(200);
    const to = newAddress();
    const received = peer.received.length;
    const refused = await send({ sol_transfer: { to, lamports: '5000000' } });
    expect(refused.status).toBe(403);
    expect(expectErrorShape(refused).error_type).toBe('policy_violation');
    expect(peer.received.length).toBe(received);
    expect(lamportsOf(to)).toBe(0n);
    const trail = await t.call('GET', `/v1/wallets/${wallet.id}/signatures`);
    expect(trail.body.signatures[0]).toMatchObject({ decision: 'refused', method: 'sign_transaction' });
    const list = await t.call('GET', `/v1/wallets/${wallet.id}/transactions`);
    expect(list.body.transactions[0]).toMatchObject({ status: 'abandoned', error: 'policy_violation' });
    // Under the cap, the same policy signs.
    const ok = await send({ sol_transfer: { to, lamports: '1500000' } });
    expect(ok.body).toMatchObject({ status: 'submitted' });
    expect(lamportsOf(to)).toBe(1_500_000n);
  });

  it('sends once per idempotency key', async () => {
    const { send } = await fundedApp();
    const to = newAddress();
    const body = { sol_transfer: { to, lamports: '1004242' }, idempotency_key: 'order-9' };
    const [a, b] = await Promise.all([send(body), send(body)]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.transaction_id).toBe(a.body.transaction_id);
    const again = await send(body);
    expect(again.body.transaction_id).toBe(a.body.transaction_id);
    expect(lamportsOf(to)).toBe(1_004_242n);
  });

  it('a send a dead process left unsigned is abandoned by its retry, once stale; a fresh one is answered as it is', async () => {
    const { t, wallet, send } = await fundedApp();
    const to = newAddress();
    const now = Math.floor(clock.now() / 1000);
    // As a process killed between storing the send and signing it leaves it.
    const left = (id: string, key: string, updatedAt: number) =>
      opened.storage.walletTransactions.insertOnce(
        newSendRow({
          id,
          app_id: t.app_id,
          wallet_id: wallet.id,
          chain_id: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
          to,
          value: '1000000',
          idempotency_key: key,
          now: updatedAt,
        }),
      );
    await left('wtx_stale_left_by_a_dead_process', 'dead-1', now - 120);
    await left('wtx_fresh_still_being_signed_now', 'busy-1', now);
    const body = (key: string) => ({ sol_transfer: { to, lamports: '1000000' }, idempotency_key: key });

    const stale = await send(body('dead-1'));
    expect(stale.status).toBe(200);
    expect(stale.body).toMatchObject({
      transaction_id: 'wtx_stale_left_by_a_dead_process',
      status: 'abandoned',
    });
    const fresh = await send(body('busy-1'));
    expect(fresh.body).toMatchObject({
      transaction_id: 'wtx_fresh_still_being_signed_now',
      status: 'preparing',
    });
    // Neither was signed nor sent.
    expect(lamportsOf(to)).toBe(0n);
    const read = await t.call(
      'GET',
      `/v1/wallets/${wallet.id}/transactions/wtx_stale_left_by_a_dead_process`,
    );
    expect(read.body).toMatchObject({ status: 'abandoned', error: 'abandoned: never signed (recovered)' });
  });

  it('a lost broadcast answer: a send that landed is submitted; one that did not is sent again by its key, once', async () => {
    const { send, read } = await fundedApp();
    const to = newAddress();
    peer.loseNextSend = 'after';
    const landed = await send({ sol_transfer: { to, lamports: '1000000' } });
    expect(landed.status).toBe(200);
    expect(landed.body.status).toBe('submitted');
    expect(lamportsOf(to)).toBe(1_000_000n);

    peer.loseNextSend = 'before';
    const body = { sol_transfer: { to, lamports: '2000000' }, idempotency_key: 'lost-1' };
    const cut = await send(body);
    expect(cut.status).toBe(502);
    expect(expectErrorShape(cut).error_type).toBe('chain_unavailable');
    expect(lamportsOf(to)).toBe(1_000_000n);
    const received = peer.received.length;
    const retried = await send(body);
    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe('submitted');
    // The same signed bytes, not new ones.
    expect(peer.received.length).toBe(received + 1);
    expect(lamportsOf(to)).toBe(3_000_000n);
    expect((await send(body)).body.transaction_id).toBe(retried.body.transaction_id);
    expect(lamportsOf(to)).toBe(3_000_000n);
    expect((await read(retried.body.transaction_id)).body.status).toBe('confirmed');
  });

  it('every bad body is a 4xx with the documented shape, never a 500', async () => {
    const { t, wallet, send } = await fundedApp();
    const eth = await walletIn(t, 'ethereum');
    const to = newAddress();
    const other = Keypair.generate();
    const otherPays = new Transaction({
      feePayer: other.publicKey,
      recentBlockhash: peer.svm.latestBlockhash(),
    })
      .add(
        SystemProgram.transfer({
          fromPubkey: new PublicKey(wallet.public_address),
          toPubkey: other.publicKey,
          lamports: 1,
        }),
      )
      .serialize({ requireAllSignatures: false, verifySignatures: false })
      .toString('base64');
    // Signed by another party with the blockhash unset: it cannot be filled in after them.
    const cosigned = new Transaction({
      feePayer: new PublicKey(wallet.public_address),
      recentBlockhash: UNSET_BLOCKHASH,
    }).add(SystemProgram.transfer({ fromPubkey: other.publicKey, toPubkey: new PublicKey(to), lamports: 1 }));
    cosigned.partialSign(other);
    const cosignedText = cosigned
      .serialize({ requireAllSignatures: false, verifySignatures: false })
      .toString('base64');
    const cases: [Record<string, unknown>, string, number?][] = [
      [{ eth_transaction: { chain_id: '1', to: `0x${'11'.repeat(20)}` } }, 'wallet_type_mismatch'],
      [{}, 'missing_field'],
      [{ sol_transfer: { to, lamports: '1' }, sol_transaction: { transaction: otherPays } }, 'missing_field'],
      [{ sol_transaction: { transaction: '!!!not base64!!!' } }, 'invalid_transaction'],
      [{ sol_transaction: { transaction: 'AAAA' } }, 'invalid_transaction'],
      [{ sol_transaction: { transaction: Buffer.alloc(300, 7).toString('base64') } }, 'invalid_transaction'],
      [{ sol_transaction: { transaction: '3yZe7d', encoding: 'base58' } }, 'invalid_transaction'],
      [{ sol_transaction: { transaction: otherPays } }, 'fee_payer_not_wallet'],
      [{ sol_transaction: { transaction: cosignedText } }, 'invalid_transaction'],
      [{ sol_transfer: { to, lamports: '0' } }, 'invalid_field'],
      [{ sol_transfer: { to, lamports: '-5' } }, 'invalid_field'],
      [{ sol_transfer: { to, lamports: '1.5' } }, 'invalid_field'],
      [{ sol_transfer: { to, lamports: 5 } }, 'invalid_field'],
      [{ sol_transfer: { to, lamports: '18446744073709551616' } }, 'invalid_field'],
      [{ sol_transfer: { to, lamports: '99999999999999999999999' } }, 'invalid_field'],
      // More than the wallet holds, and less than a new account's rent: the node's preflight refuses them.
      [{ sol_transfer: { to, lamports: '18446744073709551615' } }, 'transaction_rejected'],
      [{ sol_transfer: { to, lamports: '1' } }, 'transaction_rejected'],
      [{ sol_transfer: { to: 'not-an-address', lamports: '1' } }, 'invalid_field'],
      [{ sol_transfer: { to: 'z'.repeat(44), lamports: '1' } }, 'invalid_field'],
      [{ sol_transfer: { to: `0x${'11'.repeat(20)}`, lamports: '1' } }, 'invalid_field'],
      [{ sol_transfer: { to, lamports: '1', memo: 'x' } }, 'unknown_field'],
    ];
    const received = peer.received.length;
    for (const [body, errorType] of cases) {
      const res = await send(body);
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status, JSON.stringify(body)).toBeLessThan(500);
      expect(expectErrorShape(res).error_type, JSON.stringify(body)).toBe(errorType);
    }
    // Only those two reached the node, and it executed nothing.
    expect(peer.received.length).toBe(received + 2);
    expect(lamportsOf(to)).toBe(0n);
    // A solana body on an ethereum wallet.
    const wrong = await t.call('POST', `/v1/wallets/${eth.id}/send_transaction`, {
      sol_transfer: { to, lamports: '1' },
    });
    expect(wrong.status).toBe(400);
    expect(expectErrorShape(wrong).error_type).toBe('wallet_type_mismatch');
  });

  it('a Solana transaction cannot be sped up or cancelled', async () => {
    const { t, wallet, send } = await fundedApp();
    const res = await send({ sol_transfer: { to: newAddress(), lamports: '1000000' } });
    expect(res.status).toBe(200);
    for (const action of ['speed_up', 'cancel']) {
      const r = await t.call(
        'POST',
        `/v1/wallets/${wallet.id}/transactions/${res.body.transaction_id}/${action}`,
        {},
      );
      expect(r.status).toBe(409);
      expect(expectErrorShape(r).error_type).toBe('transaction_not_replaceable');
    }
  });

  it('a transaction that never lands is dropped once its blockhash expires', async () => {
    const { send, read } = await fundedApp();
    const to = newAddress();
    peer.swallow = true;
    let res: Awaited<ReturnType<typeof send>>;
    try {
      res = await send({ sol_transfer: { to, lamports: '1000000' } });
    } finally {
      peer.swallow = false;
    }
    expect(res.status).toBe(200);
    expect((await read(res.body.transaction_id)).body.status).toBe('submitted');
    peer.svm.expireBlockhash();
    const dropped = await read(res.body.transaction_id);
    expect(dropped.body).toMatchObject({ status: 'dropped' });
    expect(lamportsOf(to)).toBe(0n);
  });

  it('a transaction that lands with an error is failed, with its event', async () => {
    const { t, wallet, send, read } = await fundedApp();
    const svm = peer.svm;
    // An SPL transfer from an account the wallet does not hold enough in: the program fails.
    const source = Keypair.generate().publicKey;
    const mint = Keypair.generate().publicKey;
    svm.setAccount({
      address: source.toBase58(),
      data: tokenAccountData(mint.toBytes(), new PublicKey(wallet.public_address).toBytes(), 1n),
      executable: false,
      lamports: svm.minimumBalanceForRentExemption(165n),
      programAddress: TOKEN_PROGRAM,
      space: 165n,
    } as never);
    const data = Buffer.alloc(9);
    data[0] = 3;
    data.writeBigUInt64LE(2n, 1);
    const tx = new Transaction({
      feePayer: new PublicKey(wallet.public_address),
      recentBlockhash: UNSET_BLOCKHASH,
    }).add(
      new TransactionInstruction({
        programId: new PublicKey(TOKEN_PROGRAM),
        keys: [
          { pubkey: source, isSigner: false, isWritable: true },
          { pubkey: source, isSigner: false, isWritable: true },
          { pubkey: new PublicKey(wallet.public_address), isSigner: true, isWritable: false },
        ],
        data,
      }),
    );
    const text = tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
    // With the preflight, the node refuses it: nothing sent, a clear 400.
    const refused = await send({ sol_transaction: { transaction: text } });
    expect(refused.status).toBe(400);
    expect(expectErrorShape(refused).error_type).toBe('transaction_rejected');
    peer.skipPreflight = true;
    let res: Awaited<ReturnType<typeof send>>;
    try {
      res = await send({ sol_transaction: { transaction: text } });
    } finally {
      peer.skipPreflight = false;
    }
    expect(res.status).toBe(200);
    const failed = await read(res.body.transaction_id);
    expect(failed.body.status).toBe('failed');
    expect(failed.body.error).toContain('InstructionError');
    const events = await t.call('GET', '/v1/events?limit=100');
    expect(events.body.events.map((e: { type: string }) => e.type)).toContain('wallet.transaction.failed');
  });

  it("another App cannot read or list the wallet's transactions", async () => {
    const { wallet, send } = await fundedApp();
    const res = await send({ sol_transfer: { to: newAddress(), lamports: '1000000' } });
    expect(res.status).toBe(200);
    const stranger = await testApp(latchkey);
    const one = await stranger.call(
      'GET',
      `/v1/wallets/${wallet.id}/transactions/${res.body.transaction_id}`,
    );
    expect(one.status).toBe(404);
    const list = await stranger.call('GET', `/v1/wallets/${wallet.id}/transactions`);
    expect(list.status).toBe(404);
    const sendAs = await stranger.call('POST', `/v1/wallets/${wallet.id}/send_transaction`, {
      sol_transfer: { to: newAddress(), lamports: '3' },
    });
    expect(sendAs.status).toBe(404);
  });
});

describe('a solana send’s audit entry and events, with and without WalletTransactionRepo.advance', () => {
  it.each([
    ['in one step (WalletTransactionRepo.advance)', true],
    ['on a storage without advance (the entry, then the transition)', false],
  ])('stores an allowed send’s audit entry with its signed bytes, and its events: %s', async (_, oneStep) => {
    const storage = memoryStorage();
    // A storage without the optional one-step write: the send's fallback.
    if (!oneStep) delete (storage.walletTransactions as { advance?: unknown }).advance;
    expect(typeof storage.walletTransactions.advance).toBe(oneStep ? 'function' : 'undefined');
    const { latchkey } = testLatchkey({
      storage,
      chains: { solana: { mainnet: peer.url, testnet: peer.url }, cacheSeconds: 0 },
    });
    const t = await testApp(latchkey);
    const user = await t.call('POST', '/v1/auth/users', { email: 'audit@example.com' });
    const created = await t.call('POST', '/v1/wallets/create', {
      user_id: user.body.user_id,
      wallet_type: 'solana',
    });
    const wallet = created.body as { id: string; public_address: string };
    peer.svm.airdrop(wallet.public_address as never, SOL as never);
    const heard: string[] = [];
    latchkey.events.on('*', (e) => void heard.push(e.type));
    const to = newAddress();
    const sent = await t.call('POST', `/v1/wallets/${wallet.id}/send_transaction`, {
      sol_transfer: { to, lamports: '1000000' },
    });
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('submitted');
    expect(lamportsOf(to)).toBe(1_000_000n);
    await expectOneSendRecorded(t, wallet.id, heard);
    await storage.close();
  });
});
