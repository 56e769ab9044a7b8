import type { Storage, WalletRecord } from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { appWithUser, makeUser, NOW, uid } from './fixtures.js';

export function makeWallet(appId: string, userId: string, over: Partial<WalletRecord> = {}): WalletRecord {
  return {
    id: uid('wallet'),
    app_id: appId,
    user_id: userId,
    wallet_type: 'ethereum',
    network: 'mainnet',
    public_address: `0x${uid('addr')}`,
    key_source: 'seed',
    derivation_path: "m/44'/60'/0'/0/0",
    key_id: uid('seed'),
    sealed_private_key: null,
    is_default: true,
    is_imported: false,
    is_read_only: false,
    verified: true,
    created_at: NOW,
    updated_at: NOW,
    ...over,
  };
}

/** Wallets and seeds: one default per (user, type) and one seed per user, under races too. */
export function walletRepoCases(storage: () => Storage): void {
  const setup = () => appWithUser(storage());

  describe('wallets', () => {
    it('creates a default once per user and type, and returns it after', async () => {
      const { s, app, user } = await setup();
      const first = makeWallet(app.id, user.id);
      expect(await s.wallets.createDefaultIfAbsent(first)).toEqual({ wallet: first, created: true });
      const second = makeWallet(app.id, user.id);
      expect(await s.wallets.createDefaultIfAbsent(second)).toEqual({ wallet: first, created: false });
      expect(await s.wallets.get(app.id, second.id)).toBeNull();
      const solana = makeWallet(app.id, user.id, { wallet_type: 'solana' });
      expect((await s.wallets.createDefaultIfAbsent(solana)).created).toBe(true);
      expect(await s.wallets.getDefault(app.id, user.id, 'ethereum')).toEqual(first);
      expect(await s.wallets.getDefault(app.id, user.id, 'bitcoin')).toBeNull();
    });

    it('gives all of 20 concurrent creators the same single default', async () => {
      const { s, app, user } = await setup();
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          s.wallets.createDefaultIfAbsent(makeWallet(app.id, user.id, { wallet_type: 'XLM' })),
        ),
      );
      expect(new Set(results.map((r) => r.wallet.id)).size).toBe(1);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect((await s.wallets.list(app.id, { userId: user.id, limit: 100 })).wallets).toHaveLength(1);
    });

    it('keeps one address per App and type, and reads wallets in their App only', async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const w = makeWallet(app.id, user.id, {
        is_default: false,
        is_imported: true,
        key_source: 'imported',
        sealed_private_key: 'lkv1.x',
      });
      expect(await s.wallets.insert(w)).toEqual({ inserted: true });
      expect(
        await s.wallets.insert(
          makeWallet(app.id, user.id, { public_address: w.public_address, is_default: false }),
        ),
      ).toEqual({
        inserted: false,
      });
      expect(
        (
          await s.wallets.createDefaultIfAbsent(
            makeWallet(app.id, user.id, { public_address: w.public_address }),
          )
        ).wallet,
      ).toEqual(w);
      expect(
        await s.wallets.insert(
          makeWallet(app.id, user.id, {
            public_address: w.public_address,
            wallet_type: 'solana',
            is_default: false,
          }),
        ),
      ).toEqual({
        inserted: true,
      });
      expect(await s.wallets.findByAddress(app.id, 'ethereum', w.public_address)).toEqual(w);
      expect(await s.wallets.findByAddress(other.app.id, 'ethereum', w.public_address)).toBeNull();
      expect(await s.wallets.get(other.app.id, w.id)).toBeNull();
      expect(
        await s.wallets.insert(
          makeWallet(other.app.id, other.user.id, { public_address: w.public_address, is_default: false }),
        ),
      ).toEqual({
        inserted: true,
      });
    });

    it('pages through wallets in id order, per user or for the whole App', async () => {
      const { s, app, user } = await setup();
      const other = makeUser(app.id);
      await s.users.insert(other);
      const made: WalletRecord[] = [];
      for (const type of ['ethereum', 'solana', 'bitcoin', 'DOT', 'XLM'] as const) {
        made.push(makeWallet(app.id, user.id, { wallet_type: type }));
        made.push(makeWallet(app.id, other.id, { wallet_type: type }));
      }
      for (const w of made) await s.wallets.createDefaultIfAbsent(w);
      const byId = [...made].sort((a, b) => (a.id < b.id ? -1 : 1));
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await s.wallets.list(app.id, { limit: 3, after });
        seen.push(...page.wallets.map((w) => w.id));
        if (!page.next_cursor) break;
        after = page.next_cursor;
      }
      expect(seen).toEqual(byId.map((w) => w.id));
      const mine = await s.wallets.list(app.id, { userId: user.id, limit: 100 });
      expect(mine.wallets.map((w) => w.id)).toEqual(
        byId.filter((w) => w.user_id === user.id).map((w) => w.id),
      );
      expect(mine.next_cursor).toBeNull();
      expect((await s.wallets.list(app.id, { userId: user.id, limit: 5 })).next_cursor).toBeNull();
    });
  });

  describe("a new user's seed and first wallet", () => {
    const makeSeed = (appId: string, userId: string) => ({
      id: uid('seed'),
      app_id: appId,
      user_id: userId,
      sealed_entropy: uid('sealed'),
      created_at: NOW,
    });
    const fromSeed = (
      seed: { id: string; app_id: string; user_id: string },
      over: Partial<WalletRecord> = {},
    ) => makeWallet(seed.app_id, seed.user_id, { key_id: seed.id, ...over });

    it('stores both at once and reads them back together, in their App only', async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      expect(await s.wallets.getDefaultWithSeed(app.id, user.id, 'ethereum')).toEqual({
        wallet: null,
        seed: null,
      });
      const seed = makeSeed(app.id, user.id);
      const wallet = fromSeed(seed);
      expect(await s.wallets.createDefaultWithSeed(seed, wallet)).toEqual(wallet);
      expect(await s.wallets.getDefaultWithSeed(app.id, user.id, 'ethereum')).toEqual({ wallet, seed });
      expect(await s.seeds.get(app.id, user.id)).toEqual(seed);
      expect(await s.wallets.getDefaultWithSeed(app.id, user.id, 'solana')).toEqual({ wallet: null, seed });
      expect(await s.wallets.getDefaultWithSeed(other.app.id, user.id, 'ethereum')).toEqual({
        wallet: null,
        seed: null,
      });
    });

    it('stores nothing for a user who has a seed, or a default of the type', async () => {
      const { s, app, user } = await setup();
      const seed = makeSeed(app.id, user.id);
      await s.seeds.insertIfAbsent(seed);
      const late = makeSeed(app.id, user.id);
      const orphan = fromSeed(late, { wallet_type: 'solana' });
      expect(await s.wallets.createDefaultWithSeed(late, orphan)).toBeNull();
      expect(await s.seeds.get(app.id, user.id)).toEqual(seed);
      expect(await s.wallets.get(app.id, orphan.id)).toBeNull();

      // An imported default and no seed: the seed is not stored either.
      const second = makeUser(app.id);
      await s.users.insert(second);
      const imported = makeWallet(app.id, second.id, { key_source: 'imported', is_imported: true });
      await s.wallets.createDefaultIfAbsent(imported);
      const unused = makeSeed(app.id, second.id);
      expect(await s.wallets.createDefaultWithSeed(unused, fromSeed(unused))).toBeNull();
      expect(await s.wallets.getDefaultWithSeed(app.id, second.id, 'ethereum')).toEqual({
        wallet: imported,
        seed: null,
      });
    });

    it('stores one seed and one wallet of 20 concurrent creators', async () => {
      const { s, app, user } = await setup();
      const seeds = Array.from({ length: 20 }, () => makeSeed(app.id, user.id));
      const results = await Promise.all(
        seeds.map((seed) => s.wallets.createDefaultWithSeed(seed, fromSeed(seed, { wallet_type: 'DOT' }))),
      );
      const stored = results.filter((r) => r !== null);
      expect(stored).toHaveLength(1);
      const { wallet, seed } = await s.wallets.getDefaultWithSeed(app.id, user.id, 'DOT');
      expect(wallet).toEqual(stored[0]);
      expect(seed?.id).toBe(stored[0]!.key_id);
      expect((await s.wallets.list(app.id, { userId: user.id, limit: 100 })).wallets).toHaveLength(1);
    });

    it('says user_not_found for a user the App does not have, and stores nothing', async () => {
      const { s, app } = await setup();
      const other = await setup();
      for (const userId of [uid('user'), other.user.id]) {
        const seed = makeSeed(app.id, userId);
        await expect(s.wallets.createDefaultWithSeed(seed, fromSeed(seed))).rejects.toMatchObject({
          errorType: 'user_not_found',
        });
        expect(await s.wallets.getDefaultWithSeed(app.id, userId, 'ethereum')).toEqual({
          wallet: null,
          seed: null,
        });
      }
    });
  });

  describe('seeds', () => {
    it('keeps one seed per user, under concurrent creation too', async () => {
      const { s, app, user } = await setup();
      const seeds = Array.from({ length: 10 }, () => ({
        id: uid('seed'),
        app_id: app.id,
        user_id: user.id,
        sealed_entropy: uid('sealed'),
        created_at: NOW,
      }));
      const winners = await Promise.all(seeds.map((seed) => s.seeds.insertIfAbsent(seed)));
      expect(new Set(winners.map((w) => w.id)).size).toBe(1);
      expect(await s.seeds.get(app.id, user.id)).toEqual(winners[0]);
      const other = await setup();
      expect(await s.seeds.get(other.app.id, user.id)).toBeNull();
    });

    it('says user_not_found for a user the App does not have, for a seed and a default wallet', async () => {
      // wallets.create does not read the user first: these writes answer for it.
      const { s, app } = await setup();
      const other = await setup();
      for (const userId of [uid('user'), other.user.id]) {
        const seed = {
          id: uid('seed'),
          app_id: app.id,
          user_id: userId,
          sealed_entropy: 'x',
          created_at: NOW,
        };
        await expect(s.seeds.insertIfAbsent(seed)).rejects.toMatchObject({ errorType: 'user_not_found' });
        await expect(s.wallets.createDefaultIfAbsent(makeWallet(app.id, userId))).rejects.toMatchObject({
          errorType: 'user_not_found',
        });
        expect(await s.seeds.get(app.id, userId)).toBeNull();
      }
    });
  });
}
