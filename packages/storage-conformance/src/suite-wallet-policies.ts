import type { Storage, WalletPolicyRecord, WalletSignatureRecord, WalletSpendRecord } from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { appWithUser, NOW, uid } from './fixtures.js';
import { makeWallet } from './suite-wallets.js';

/** Ids sort as created: a counter keeps them in order within a run. */
let seq = 0;
const orderedId = (prefix: string) => `${prefix}_${(seq++).toString().padStart(8, '0')}${uid('x')}`;

export function makePolicy(appId: string, over: Partial<WalletPolicyRecord> = {}): WalletPolicyRecord {
  return {
    id: orderedId('policy'),
    app_id: appId,
    name: 'Limits ✓',
    wallet_id: null,
    rules: [
      { kind: 'evm_to_allowlist', addresses: ['0x52908400098527886E0F7030069857D2E4169EE7'] },
      { kind: 'evm_daily_value', max_wei: '1000000000000000000000000', chain_id: '1' },
    ],
    created_at: NOW,
    updated_at: NOW,
    ...over,
  };
}

export function makeSpend(
  appId: string,
  walletId: string,
  over: Partial<WalletSpendRecord> = {},
): WalletSpendRecord {
  return {
    id: uid('spend'),
    app_id: appId,
    wallet_id: walletId,
    asset: 'solana:lamports',
    amount: 100n,
    created_at: NOW,
    ...over,
  };
}

export function makeSignatureEntry(
  appId: string,
  walletId: string,
  over: Partial<WalletSignatureRecord> = {},
): WalletSignatureRecord {
  return {
    id: uid('signature'),
    app_id: appId,
    wallet_id: walletId,
    method: 'sign_transaction',
    chain: 'solana',
    payload_digest: 'ab'.repeat(32),
    decision: 'allowed',
    policy_id: null,
    rule_index: null,
    rule_kind: null,
    error_type: null,
    key_kind: 'secret',
    created_at: NOW,
    ...over,
  };
}

/** Policies, the spend ledger behind daily caps (exact under races), and the audit trail. */
export function walletPolicyRepoCases(storage: () => Storage): void {
  const setup = async () => {
    const base = await appWithUser(storage());
    const wallet = makeWallet(base.app.id, base.user.id);
    await base.s.wallets.insert(wallet);
    return { ...base, wallet };
  };

  describe('wallet policies', () => {
    it('keeps at most maxPerApp policies per App, exactly when 20 inserts race', async () => {
      const { s, app, wallet } = await setup();
      const other = await setup();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.walletPolicies.insert(makePolicy(app.id, i % 2 ? { wallet_id: wallet.id } : {}), {
            maxPerApp: 5,
          }),
        ),
      );
      expect(results.filter((r) => r.inserted)).toHaveLength(5);
      expect((await s.walletPolicies.list(app.id, { limit: 100 })).policies).toHaveLength(5);
      expect(await s.walletPolicies.insert(makePolicy(app.id), { maxPerApp: 5 })).toEqual({
        inserted: false,
      });
      // Another App's count is its own.
      expect(await s.walletPolicies.insert(makePolicy(other.app.id), { maxPerApp: 5 })).toEqual({
        inserted: true,
      });
      // A deleted policy frees its place.
      const [first] = (await s.walletPolicies.list(app.id, { limit: 1 })).policies;
      expect(await s.walletPolicies.delete(app.id, first!.id)).toBe(true);
      expect(await s.walletPolicies.insert(makePolicy(app.id), { maxPerApp: 5 })).toEqual({ inserted: true });
    });

    it('stores, lists by page, updates and deletes policies within their App', async () => {
      const { s, app, wallet } = await setup();
      const other = await setup();
      const all = makePolicy(app.id);
      const one = makePolicy(app.id, { wallet_id: wallet.id });
      const foreign = makePolicy(other.app.id);
      for (const p of [all, one, foreign]) await s.walletPolicies.insert(p, { maxPerApp: 100 });
      expect(await s.walletPolicies.get(app.id, all.id)).toEqual(all);
      expect(await s.walletPolicies.get(app.id, foreign.id)).toBeNull();
      expect(await s.walletPolicies.list(app.id, { limit: 10 })).toEqual({
        policies: [all, one],
        next_cursor: null,
      });
      expect(await s.walletPolicies.list(app.id, { limit: 1 })).toEqual({
        policies: [all],
        next_cursor: all.id,
      });
      expect(await s.walletPolicies.list(app.id, { limit: 1, after: all.id })).toEqual({
        policies: [one],
        next_cursor: null,
      });
      expect((await s.walletPolicies.list(app.id, { limit: 10, walletId: wallet.id })).policies).toEqual([
        one,
      ]);

      const updated = await s.walletPolicies.update(app.id, all.id, {
        rules: [{ kind: 'allowed_chains', chains: ['XLM'] }],
        updated_at: NOW + 5,
      });
      expect(updated).toEqual({
        ...all,
        rules: [{ kind: 'allowed_chains', chains: ['XLM'] }],
        updated_at: NOW + 5,
      });
      expect(await s.walletPolicies.update(app.id, foreign.id, { name: 'x', updated_at: NOW })).toBeNull();
      expect((await s.walletPolicies.get(other.app.id, foreign.id))?.name).toBe(foreign.name);

      expect(await s.walletPolicies.delete(app.id, foreign.id)).toBe(false);
      expect(await s.walletPolicies.delete(app.id, all.id)).toBe(true);
      expect(await s.walletPolicies.delete(app.id, all.id)).toBe(false);
      expect(await s.walletPolicies.get(app.id, all.id)).toBeNull();
    });

    it("gives a wallet the App's policies and its own, not another wallet's", async () => {
      const { s, app, user, wallet } = await setup();
      const second = makeWallet(app.id, user.id, { is_default: false });
      await s.wallets.insert(second);
      const all = makePolicy(app.id);
      const mine = makePolicy(app.id, { wallet_id: wallet.id });
      const theirs = makePolicy(app.id, { wallet_id: second.id });
      for (const p of [all, mine, theirs]) await s.walletPolicies.insert(p, { maxPerApp: 100 });
      expect(await s.walletPolicies.listForWallet(app.id, wallet.id)).toEqual([all, mine]);
      expect(await s.walletPolicies.listForWallet(app.id, second.id)).toEqual([all, theirs]);
    });
  });

  describe('wallet spends', () => {
    it('reserves within the cap and window, per wallet and asset, and releases', async () => {
      const { s, app, user, wallet } = await setup();
      const reserve = (over: Partial<WalletSpendRecord>, limit: bigint) =>
        s.walletSpends.reserve(makeSpend(app.id, wallet.id, over), NOW - 100, limit);
      expect(await reserve({ amount: 600n }, 1000n)).toEqual({ reserved: true, spent: 0n });
      expect(await reserve({ amount: 401n }, 1000n)).toEqual({ reserved: false, spent: 600n });
      const last = makeSpend(app.id, wallet.id, { amount: 400n });
      expect(await s.walletSpends.reserve(last, NOW - 100, 1000n)).toEqual({ reserved: true, spent: 600n });
      expect(await reserve({ amount: 1n }, 1000n)).toEqual({ reserved: false, spent: 1000n });
      // Other assets and wallets count apart; spends at or before `since` are out of the window.
      expect((await reserve({ amount: 1000n, asset: 'evm:1' }, 1000n)).reserved).toBe(true);
      // Each token is an asset of its own (`erc20:<chain>:<contract>`), apart from the chain's ETH.
      const usdc = 'erc20:1:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
      expect(await reserve({ amount: 1000n, asset: usdc }, 1000n)).toEqual({ reserved: true, spent: 0n });
      expect(await reserve({ amount: 1n, asset: usdc }, 1000n)).toEqual({ reserved: false, spent: 1000n });
      const other = makeWallet(app.id, user.id, { is_default: false });
      await s.wallets.insert(other);
      expect((await s.walletSpends.reserve(makeSpend(app.id, other.id), NOW, 100n)).reserved).toBe(true);
      expect(
        await s.walletSpends.reserve(
          makeSpend(app.id, wallet.id, { amount: 1n, asset: 'evm:1', created_at: NOW + 200 }),
          NOW,
          1n,
        ),
      ).toEqual({ reserved: true, spent: 0n });
      // Amounts beyond 64 bits (wei) are summed exactly.
      const big = 2n ** 200n;
      expect((await reserve({ amount: big, asset: 'evm:137' }, big + 1n)).reserved).toBe(true);
      expect(await reserve({ amount: 2n, asset: 'evm:137' }, big + 1n)).toEqual({
        reserved: false,
        spent: big,
      });

      await s.walletSpends.release(app.id, last.id);
      expect(await reserve({ amount: 400n }, 1000n)).toEqual({ reserved: true, spent: 600n });
      await s.walletSpends.prune(NOW + 1);
      expect(await reserve({ amount: 1000n }, 1000n)).toEqual({ reserved: true, spent: 0n });
    });

    it('lets 20 concurrent reservations of 1 under a cap of 7 record exactly 7', async () => {
      const { s, app, wallet } = await setup();
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          s.walletSpends.reserve(makeSpend(app.id, wallet.id, { amount: 1n }), 0, 7n),
        ),
      );
      expect(results.filter((r) => r.reserved)).toHaveLength(7);
      expect(await s.walletSpends.reserve(makeSpend(app.id, wallet.id, { amount: 1n }), 0, 7n)).toEqual({
        reserved: false,
        spent: 7n,
      });
    });
  });

  describe('wallet signatures (audit trail)', () => {
    it('lists a wallet’s entries newest first by insertion, in pages, within the App', async () => {
      const { s, app, wallet } = await setup();
      const other = await setup();
      // Same second, ids in no particular order: insertion order still decides.
      const entries = ['zz', 'aa', 'mm', 'bb'].map((p, i) =>
        makeSignatureEntry(app.id, wallet.id, {
          id: `signature_${p}${uid('x')}`,
          decision: i === 1 ? 'refused' : 'allowed',
          ...(i === 1
            ? { policy_id: 'policy_x', rule_index: 2, rule_kind: 'evm_to_allowlist' as const }
            : {}),
        }),
      );
      for (const e of entries) await s.walletSignatures.insert(e);
      await s.walletSignatures.insert(makeSignatureEntry(other.app.id, other.wallet.id));
      const newest = [...entries].reverse();
      expect(await s.walletSignatures.list(app.id, wallet.id, { limit: 10 })).toEqual({
        signatures: newest,
        next_cursor: null,
      });
      const first = await s.walletSignatures.list(app.id, wallet.id, { limit: 3 });
      expect(first).toEqual({ signatures: newest.slice(0, 3), next_cursor: newest[2]!.id });
      expect(
        await s.walletSignatures.list(app.id, wallet.id, { limit: 3, before: first.next_cursor! }),
      ).toEqual({
        signatures: newest.slice(3),
        next_cursor: null,
      });
      expect((await s.walletSignatures.list(other.app.id, wallet.id, { limit: 10 })).signatures).toEqual([]);
      expect(
        (await s.walletSignatures.list(app.id, wallet.id, { limit: 10, before: 'signature_unknown' }))
          .signatures,
      ).toEqual([]);
    });
  });
}
