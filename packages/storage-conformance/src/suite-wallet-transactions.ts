import type { EventRecord, Storage, WalletTransactionRecord } from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { appWithUser, NOW, uid } from './fixtures.js';
import { makeSignatureEntry } from './suite-wallet-policies.js';
import { makeWallet } from './suite-wallets.js';

export function makeWalletTransaction(
  appId: string,
  walletId: string,
  over: Partial<WalletTransactionRecord> = {},
): Omit<WalletTransactionRecord, 'nonce'> {
  return {
    id: uid('wtx'),
    app_id: appId,
    wallet_id: walletId,
    chain_id: '1',
    kind: 'send',
    status: 'preparing',
    to: '0x52908400098527886E0F7030069857D2E4169EE7',
    // Beyond 2^64: wei amounts are exact at any size.
    value: '123456789012345678901234567890',
    data: '0xa9059cbb',
    gas_limit: '21000',
    max_fee_per_gas: '3000000000',
    max_priority_fee_per_gas: '1000000000',
    transaction_hash: null,
    raw_transaction: null,
    replaces: null,
    replaced_by: null,
    idempotency_key: null,
    block_number: null,
    gas_used: null,
    effective_gas_price: null,
    fee: null,
    error: null,
    created_at: NOW,
    updated_at: NOW,
    ...over,
  };
}

/** Sent transactions and the nonce sequence behind them (exact under races). */
export function walletTransactionRepoCases(storage: () => Storage, parallelism = 1): void {
  const setup = async () => {
    const base = await appWithUser(storage());
    const wallet = makeWallet(base.app.id, base.user.id);
    await base.s.wallets.insert(wallet);
    return { ...base, wallet };
  };

  describe('wallet transactions', () => {
    it('hands out consecutive nonces per wallet and chain, exactly when 30 inserts race', async () => {
      const { s, app, wallet } = await setup();
      const taken = await Promise.all(
        Array.from({ length: 30 }, () =>
          s.walletTransactions.insertWithNextNonce(makeWalletTransaction(app.id, wallet.id), 0),
        ),
      );
      expect(taken.map((t) => t.transaction.nonce).sort((a, b) => a! - b!)).toEqual([...Array(30).keys()]);
      expect(taken.every((t) => t.created)).toBe(true);
      // Another chain has its own sequence; the chain's count raises the floor.
      const other = await s.walletTransactions.insertWithNextNonce(
        makeWalletTransaction(app.id, wallet.id, { chain_id: '137' }),
        7,
      );
      expect(other.transaction.nonce).toBe(7);
      const next = await s.walletTransactions.insertWithNextNonce(
        makeWalletTransaction(app.id, wallet.id),
        40,
      );
      expect(next.transaction.nonce).toBe(40);
      void parallelism;
    });

    it('takes an abandoned nonce again first, unless the chain has moved past it', async () => {
      const { s, app, wallet } = await setup();
      const ids: string[] = [];
      for (let i = 0; i < 4; i++)
        ids.push(
          (await s.walletTransactions.insertWithNextNonce(makeWalletTransaction(app.id, wallet.id), 0))
            .transaction.id,
        );
      const abandoned = await s.walletTransactions.abandon(app.id, ids[1]!, ['preparing'], {
        error: 'policy_violation',
        updated_at: NOW + 1,
      });
      expect(abandoned).toMatchObject({ status: 'abandoned', error: 'policy_violation', nonce: 1 });
      // Not twice: the second abandon finds it moved.
      expect(
        await s.walletTransactions.abandon(app.id, ids[1]!, ['preparing'], { error: 'x', updated_at: NOW }),
      ).toBeNull();
      await s.walletTransactions.abandon(app.id, ids[2]!, ['preparing'], { error: 'x', updated_at: NOW });
      const reuse = await s.walletTransactions.insertWithNextNonce(
        makeWalletTransaction(app.id, wallet.id),
        0,
      );
      expect(reuse.transaction.nonce).toBe(1);
      // Nonce 2 was given back too, but the chain already counts 3: it went to something else.
      const past = await s.walletTransactions.insertWithNextNonce(
        makeWalletTransaction(app.id, wallet.id),
        3,
      );
      expect(past.transaction.nonce).toBe(4);
    });

    it('keeps one transaction per idempotency key, whatever the race', async () => {
      const { s, app, wallet } = await setup();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          s.walletTransactions.insertWithNextNonce(
            makeWalletTransaction(app.id, wallet.id, { idempotency_key: 'k1', chain_id: i % 2 ? '1' : '10' }),
            0,
          ),
        ),
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.transaction.id)).size).toBe(1);
      const found = await s.walletTransactions.findByIdempotencyKey(app.id, wallet.id, 'k1');
      expect(found?.id).toBe(results[0]!.transaction.id);
      expect(await s.walletTransactions.findByIdempotencyKey(app.id, wallet.id, 'k2')).toBeNull();
    });

    it('inserts a transaction without a nonce (Solana) once per idempotency key, whatever the race', async () => {
      const { s, app, wallet } = await setup();
      const solana = (key: string | null) => ({
        ...makeWalletTransaction(app.id, wallet.id, {
          chain_id: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
          to: null,
          value: '1000000',
          data: null,
          gas_limit: null,
          max_fee_per_gas: null,
          max_priority_fee_per_gas: null,
          idempotency_key: key,
        }),
        nonce: null,
      });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => s.walletTransactions.insertOnce(solana('sol-1'))),
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.transaction.id)).size).toBe(1);
      const stored = await s.walletTransactions.get(app.id, results[0]!.transaction.id);
      expect(stored).toMatchObject({
        nonce: null,
        to: null,
        gas_limit: null,
        max_fee_per_gas: null,
        value: '1000000',
      });
      // Without a key, every insert is its own; abandoning one gives no nonce back to any sequence.
      const a = await s.walletTransactions.insertOnce(solana(null));
      const b = await s.walletTransactions.insertOnce(solana(null));
      expect(a.created && b.created).toBe(true);
      const abandoned = await s.walletTransactions.abandon(app.id, a.transaction.id, ['preparing'], {
        error: 'refused',
        updated_at: NOW + 1,
      });
      expect(abandoned).toMatchObject({ status: 'abandoned', nonce: null });
      const evm = await s.walletTransactions.insertWithNextNonce(makeWalletTransaction(app.id, wallet.id), 0);
      expect(evm.transaction.nonce).toBe(0);
    });

    it('moves a transaction only from the statuses named, once, and stores every field exactly', async () => {
      const { s, app, wallet } = await setup();
      const other = await setup();
      const { transaction } = await s.walletTransactions.insertWithNextNonce(
        makeWalletTransaction(app.id, wallet.id),
        0,
      );
      expect(await s.walletTransactions.get(app.id, transaction.id)).toEqual(transaction);
      expect(await s.walletTransactions.get(other.app.id, transaction.id)).toBeNull();
      const signed = await s.walletTransactions.transition(app.id, transaction.id, ['preparing'], {
        status: 'signed',
        raw_transaction: '0x02f8',
        transaction_hash: `0x${'ab'.repeat(32)}`,
        updated_at: NOW + 1,
      });
      expect(signed).toEqual({
        ...transaction,
        status: 'signed',
        raw_transaction: '0x02f8',
        transaction_hash: `0x${'ab'.repeat(32)}`,
        updated_at: NOW + 1,
      });
      expect(await s.walletTransactions.listUnsent(app.id, wallet.id, '1')).toEqual([signed]);
      const racing = await Promise.all(
        Array.from({ length: 5 }, () =>
          s.walletTransactions.transition(app.id, transaction.id, ['signed'], { status: 'submitted' }),
        ),
      );
      expect(racing.filter(Boolean)).toHaveLength(1);
      const confirmed = await s.walletTransactions.transition(app.id, transaction.id, ['submitted'], {
        status: 'confirmed',
        block_number: '19000000',
        gas_used: '21000',
        effective_gas_price: '1000000007',
        fee: '21000000147000',
        raw_transaction: null,
      });
      expect(confirmed).toMatchObject({ status: 'confirmed', fee: '21000000147000', raw_transaction: null });
      expect(await s.walletTransactions.listUnsent(app.id, wallet.id, '1')).toEqual([]);
      expect(
        await s.walletTransactions.transition(other.app.id, transaction.id, ['confirmed'], {
          status: 'failed',
        }),
      ).toBeNull();
    });

    it('advances a held transaction with the audit entry of its signature, which stays when it does not move', async () => {
      const { s, app, wallet } = await setup();
      const r = s.walletTransactions;
      if (!r.advance) return;
      const trail = async () =>
        (await s.walletSignatures.list(app.id, wallet.id, { limit: 10 })).signatures.map((e) => e.id);
      const { transaction } = await r.insertWithNextNonce(makeWalletTransaction(app.id, wallet.id), 0);
      const entry = makeSignatureEntry(app.id, wallet.id, { chain: 'ethereum' });
      const hash = `0x${'cd'.repeat(32)}`;
      const signed = await r.advance(
        transaction,
        ['preparing'],
        { status: 'signed', raw_transaction: '0x02f8', transaction_hash: hash, updated_at: NOW + 1 },
        entry,
      );
      expect(signed).toEqual({
        ...transaction,
        status: 'signed',
        raw_transaction: '0x02f8',
        transaction_hash: hash,
        updated_at: NOW + 1,
      });
      expect((await s.walletSignatures.list(app.id, wallet.id, { limit: 10 })).signatures).toEqual([entry]);
      // Not from a status it is not in: nothing moves, and the signature made is in the trail.
      const late = makeSignatureEntry(app.id, wallet.id, { chain: 'ethereum' });
      expect(
        await r.advance(transaction, ['preparing'], { status: 'signed', raw_transaction: '0x01' }, late),
      ).toBeNull();
      expect(await trail()).toEqual([late.id, entry.id]);
      expect(await r.get(app.id, transaction.id)).toEqual(signed);
      // Without an entry; a field set to null is cleared, one absent is kept.
      const confirmed = await r.advance(
        signed!,
        ['signed', 'submitted'],
        { status: 'confirmed', block_number: '19000000', fee: '21000000147000', raw_transaction: null },
        null,
      );
      expect(confirmed).toEqual({
        ...signed,
        status: 'confirmed',
        block_number: '19000000',
        fee: '21000000147000',
        raw_transaction: null,
      });
      expect(await trail()).toEqual([late.id, entry.id]);
      // Another App's transaction does not move by this one's id.
      const other = await setup();
      expect(
        await r.advance({ ...confirmed!, app_id: other.app.id }, ['confirmed'], { status: 'failed' }, null),
      ).toBeNull();
    });

    it('advances with the events: the signature’s always, the transition’s only when it moves', async () => {
      const { s, app, wallet } = await setup();
      const r = s.walletTransactions;
      if (!r.advanceWithEvents) return;
      const event = (type: EventRecord['type'], data: Record<string, unknown>): EventRecord => ({
        id: uid('evt'),
        app_id: app.id,
        type,
        data,
        created_at: NOW,
      });
      const stored = async (e: EventRecord) => s.events.get(app.id, e.id);
      const { transaction } = await r.insertWithNextNonce(makeWalletTransaction(app.id, wallet.id), 0);
      const entry = makeSignatureEntry(app.id, wallet.id, { chain: 'ethereum' });
      const made = event('signature.made', { signature_id: entry.id });
      const sent = event('wallet.transaction.sent', { transaction_id: transaction.id });
      // Not moved (it is not signed yet): the signature's event only.
      expect(
        await r.advanceWithEvents(transaction, ['signed'], { status: 'submitted' }, entry, [made, sent]),
      ).toBeNull();
      expect(await stored(made)).toEqual(made);
      expect(await stored(sent)).toBeNull();
      const made2 = event('signature.made', { n: 2 });
      const sent2 = event('wallet.transaction.sent', { n: 2 });
      const moved = await r.advanceWithEvents(
        transaction,
        ['preparing'],
        { status: 'submitted', updated_at: NOW + 2 },
        makeSignatureEntry(app.id, wallet.id, { chain: 'ethereum' }),
        [made2, sent2],
      );
      expect(moved).toEqual({ ...transaction, status: 'submitted', updated_at: NOW + 2 });
      expect(await stored(made2)).toEqual(made2);
      expect(await stored(sent2)).toEqual(sent2);
      // No entry, no events: the transition alone.
      expect(
        await r.advanceWithEvents(
          moved!,
          ['submitted'],
          { status: 'replaced', replaced_by: 'wtx_x' },
          null,
          [],
        ),
      ).toMatchObject({ status: 'replaced', replaced_by: 'wtx_x' });
    });

    it('lists a wallet’s transactions newest first, a page at a time, replacements included', async () => {
      const { s, app, wallet } = await setup();
      const first = (
        await s.walletTransactions.insertWithNextNonce(makeWalletTransaction(app.id, wallet.id), 0)
      ).transaction;
      const replacement = {
        ...makeWalletTransaction(app.id, wallet.id, { kind: 'speed_up', replaces: first.id }),
        nonce: first.nonce,
      };
      await s.walletTransactions.insert(replacement);
      const third = (
        await s.walletTransactions.insertWithNextNonce(makeWalletTransaction(app.id, wallet.id), 0)
      ).transaction;
      expect(third.nonce).toBe(1);
      const page = await s.walletTransactions.list(app.id, wallet.id, { limit: 2 });
      expect(page.transactions.map((t) => t.id)).toEqual([third.id, replacement.id]);
      expect(page.next_cursor).toBe(replacement.id);
      const rest = await s.walletTransactions.list(app.id, wallet.id, {
        limit: 2,
        before: page.next_cursor!,
      });
      expect(rest).toEqual({ transactions: [first], next_cursor: null });
      expect(
        (await s.walletTransactions.list(app.id, wallet.id, { limit: 2, before: 'wtx_unknown' }))
          .transactions,
      ).toEqual([]);
    });
  });
}
