import type { Storage, WalletChallengeRecord } from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { makeApp, makeUser, NOW, uid } from './fixtures.js';

export function makeWalletChallenge(
  appId: string,
  over: Partial<WalletChallengeRecord> = {},
): WalletChallengeRecord {
  const nonce = uid('nonce').replace(/_/g, '');
  return {
    id: uid('challenge'),
    app_id: appId,
    wallet_type: 'ethereum',
    public_address: '0x52908400098527886E0F7030069857D2E4169EE7',
    nonce,
    message: `example.com wants you to sign in with your Ethereum account:\n…\nNonce: ${nonce}\n`,
    user_id: null,
    expires_at: NOW + 300,
    used_at: null,
    created_at: NOW,
    ...over,
  };
}

/** Wallet sign-in challenges: single use by nonce, the latest per address, expiry clean-up. */
export function walletChallengeRepoCases(storage: () => Storage): void {
  const setup = async () => {
    const s = storage();
    const app = makeApp();
    await s.apps.insert(app);
    return { s, app };
  };

  describe('wallet challenges', () => {
    it('consumes a challenge once, in its App only, and says why not otherwise', async () => {
      const { s, app } = await setup();
      const other = await setup();
      const user = makeUser(app.id);
      await s.users.insert(user);
      const c = makeWalletChallenge(app.id, { user_id: user.id, message: 'Ünïcode ✓\nline two' });
      await s.walletChallenges.insert(c);
      // Reading by nonce spends nothing, and sees only the App's own.
      expect(await s.walletChallenges.get(app.id, c.nonce)).toEqual(c);
      expect(await s.walletChallenges.get(other.app.id, c.nonce)).toBeNull();
      expect(await s.walletChallenges.get(app.id, `${c.nonce}x`)).toBeNull();
      expect(await s.walletChallenges.consume(other.app.id, c.nonce, NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await s.walletChallenges.consume(app.id, `${c.nonce}x`, NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await s.walletChallenges.consume(app.id, c.nonce, NOW + 5)).toEqual({
        ok: true,
        challenge: { ...c, used_at: NOW + 5 },
      });
      expect(await s.walletChallenges.consume(app.id, c.nonce, NOW + 6)).toEqual({
        ok: false,
        reason: 'used',
      });
      expect(await s.walletChallenges.get(app.id, c.nonce)).toEqual({ ...c, used_at: NOW + 5 });
    });

    it('refuses an expired challenge from its expiry second on, and says used before expired', async () => {
      const { s, app } = await setup();
      const c = makeWalletChallenge(app.id, { wallet_type: 'solana', public_address: uid('Sol') });
      await s.walletChallenges.insert(c);
      expect(await s.walletChallenges.consume(app.id, c.nonce, c.expires_at)).toEqual({
        ok: false,
        reason: 'expired',
      });
      const used = makeWalletChallenge(app.id);
      await s.walletChallenges.insert(used);
      expect((await s.walletChallenges.consume(app.id, used.nonce, NOW)).ok).toBe(true);
      expect(await s.walletChallenges.consume(app.id, used.nonce, used.expires_at + 1)).toEqual({
        ok: false,
        reason: 'used',
      });
    });

    it('lets exactly one of 10 concurrent consumes win', async () => {
      const { s, app } = await setup();
      const c = makeWalletChallenge(app.id);
      await s.walletChallenges.insert(c);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => s.walletChallenges.consume(app.id, c.nonce, NOW)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok).map((r) => !r.ok && r.reason)).toEqual(Array(9).fill('used'));
    });

    it('finds the challenge issued last for an address and type, used or not, in its App only', async () => {
      const { s, app } = await setup();
      const other = await setup();
      const address = `0x${uid('a')}`;
      const first = makeWalletChallenge(app.id, { public_address: address, created_at: NOW });
      const second = makeWalletChallenge(app.id, { public_address: address, created_at: NOW + 1 });
      const sameSecond = makeWalletChallenge(app.id, {
        public_address: address,
        created_at: NOW + 1,
        id: `${second.id}z`, // a greater id in the same second
      });
      const solana = makeWalletChallenge(app.id, {
        public_address: address,
        wallet_type: 'solana',
        created_at: NOW + 9,
      });
      const elsewhere = makeWalletChallenge(other.app.id, { public_address: address, created_at: NOW + 9 });
      for (const c of [sameSecond, first, solana, second, elsewhere]) await s.walletChallenges.insert(c);
      expect(await s.walletChallenges.latest(app.id, 'ethereum', address)).toEqual(sameSecond);
      await s.walletChallenges.consume(app.id, sameSecond.nonce, NOW + 2);
      expect(await s.walletChallenges.latest(app.id, 'ethereum', address)).toEqual({
        ...sameSecond,
        used_at: NOW + 2,
      });
      expect(await s.walletChallenges.latest(app.id, 'solana', address)).toEqual(solana);
      expect(await s.walletChallenges.latest(app.id, 'ethereum', `0x${uid('none')}`)).toBeNull();
    });

    it("deletes only the App's challenges that expired before the cut-off", async () => {
      const { s, app } = await setup();
      const other = await setup();
      const old = makeWalletChallenge(app.id, { expires_at: NOW - 10 });
      const fresh = makeWalletChallenge(app.id, { expires_at: NOW + 10 });
      const elsewhere = makeWalletChallenge(other.app.id, { expires_at: NOW - 10 });
      for (const c of [old, fresh, elsewhere]) await s.walletChallenges.insert(c);
      await s.walletChallenges.deleteExpired(app.id, NOW);
      const consume = (c: WalletChallengeRecord) => s.walletChallenges.consume(c.app_id, c.nonce, NOW - 100);
      expect(await consume(old)).toEqual({ ok: false, reason: 'not_found' });
      expect((await consume(fresh)).ok).toBe(true);
      expect((await consume(elsewhere)).ok).toBe(true);
    });
  });
}
