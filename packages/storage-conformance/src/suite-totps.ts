import type { RecoveryCodeRecord, Storage, TotpRecord } from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { appWithUser, NOW, uid } from './fixtures.js';

export function makeTotp(appId: string, userId: string, over: Partial<TotpRecord> = {}): TotpRecord {
  return {
    id: uid('totp'),
    app_id: appId,
    user_id: userId,
    sealed_secret: uid('sealed'),
    status: 'pending',
    expires_at: NOW + 1800,
    last_used_step: null,
    failed_attempts: 0,
    locked_until: null,
    verified_at: null,
    created_at: NOW,
    ...over,
  };
}

const codesFor = (t: TotpRecord, n = 3): RecoveryCodeRecord[] =>
  Array.from({ length: n }, () => ({
    id: uid('rc'),
    app_id: t.app_id,
    user_id: t.user_id,
    totp_id: t.id,
    code_hash: uid('rch'),
    used_at: null,
    created_at: NOW,
  }));

/** TOTPs and recovery codes: one active per user, replay refused, lock-out counted atomically. */
export function totpRepoCases(storage: () => Storage): void {
  const setup = () => appWithUser(storage());

  describe('totps', () => {
    it('creates pending, replaces an older pending one, activates once, and refuses a new one while active', async () => {
      const { s, app, user } = await setup();
      const first = makeTotp(app.id, user.id);
      expect(await s.totps.createPending(first, codesFor(first))).toEqual({ created: true });
      const second = makeTotp(app.id, user.id);
      const codes = codesFor(second);
      await s.totps.createPending(second, codes);
      expect(await s.totps.get(app.id, first.id)).toBeNull();
      expect(await s.totps.getForUser(app.id, user.id)).toEqual(second);
      const active = await s.totps.activate(app.id, second.id, NOW + 10, 100);
      expect(active).toEqual({ ...second, status: 'active', verified_at: NOW + 10, last_used_step: 100 });
      expect(await s.totps.activate(app.id, second.id, NOW + 11, 101)).toBeNull();
      const third = makeTotp(app.id, user.id);
      expect(await s.totps.createPending(third, codesFor(third))).toEqual({ created: false });
      expect(await s.totps.get(app.id, third.id)).toBeNull();
      expect(await s.totps.getForUser(app.id, user.id)).toEqual(active);
    });

    it('does not activate after its window or in another App', async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const t = makeTotp(app.id, user.id, { expires_at: NOW + 60 });
      await s.totps.createPending(t, []);
      expect(await s.totps.activate(other.app.id, t.id, NOW, 1)).toBeNull();
      expect(await s.totps.activate(app.id, t.id, NOW + 60, 1)).toBeNull();
      expect(await s.totps.get(other.app.id, t.id)).toBeNull();
    });

    it('uses each step once and only forward', async () => {
      const { s, app, user } = await setup();
      const t = makeTotp(app.id, user.id, { status: 'active', last_used_step: 10 });
      await s.totps.createPending({ ...t, status: 'pending' }, []);
      await s.totps.activate(app.id, t.id, NOW, 10);
      expect(await s.totps.useStep(app.id, t.id, 10)).toBe(false);
      expect(await s.totps.useStep(app.id, t.id, 9)).toBe(false);
      expect(await s.totps.useStep(app.id, t.id, 11)).toBe(true);
      expect(await s.totps.useStep(app.id, t.id, 11)).toBe(false);
      const results = await Promise.all(Array.from({ length: 10 }, () => s.totps.useStep(app.id, t.id, 12)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('counts failures and locks at the limit, atomically', async () => {
      const { s, app, user } = await setup();
      const t = makeTotp(app.id, user.id);
      await s.totps.createPending(t, []);
      await Promise.all(Array.from({ length: 4 }, () => s.totps.recordFailure(app.id, t.id, NOW, 5, 900)));
      expect((await s.totps.get(app.id, t.id))?.failed_attempts).toBe(4);
      const locked = await s.totps.recordFailure(app.id, t.id, NOW, 5, 900);
      expect(locked).toMatchObject({ failed_attempts: 0, locked_until: NOW + 900 });
      expect(await s.totps.useStep(app.id, t.id, 5)).toBe(true);
    });

    it('consumes each recovery code once, and deletes codes with their TOTP', async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const t = makeTotp(app.id, user.id);
      const codes = codesFor(t, 2);
      await s.totps.createPending(t, codes);
      expect(await s.totps.consumeRecoveryCode(other.app.id, t.id, codes[0]!.code_hash, NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      const both = await Promise.all([
        s.totps.consumeRecoveryCode(app.id, t.id, codes[0]!.code_hash, NOW),
        s.totps.consumeRecoveryCode(app.id, t.id, codes[0]!.code_hash, NOW),
      ]);
      expect(both.filter((r) => r.ok)).toHaveLength(1);
      expect(await s.totps.consumeRecoveryCode(app.id, t.id, codes[0]!.code_hash, NOW)).toEqual({
        ok: false,
        reason: 'used',
      });
      expect(await s.totps.delete(other.app.id, t.id)).toBeNull();
      expect(await s.totps.delete(app.id, t.id)).toEqual(t);
      expect(await s.totps.consumeRecoveryCode(app.id, t.id, codes[1]!.code_hash, NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await s.totps.getForUser(app.id, user.id)).toBeNull();
    });
  });
}
