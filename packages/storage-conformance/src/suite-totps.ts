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
    recovery_failed_attempts: 0,
    recovery_locked_until: null,
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

async function activeTotp(s: Storage, appId: string, userId: string) {
  const t = makeTotp(appId, userId);
  await s.totps.createPending(t, []);
  await s.totps.activate(appId, t.id, NOW, 1);
  return t;
}

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

    it('lets at most maxFailures code checks through per lock window, however many arrive at once', async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const t = await activeTotp(s, app.id, user.id);
      expect(await s.totps.beginCodeCheck(other.app.id, t.id, NOW, 10, 900)).toBeNull();
      const tickets = await Promise.all(
        Array.from({ length: 200 }, () => s.totps.beginCodeCheck(app.id, t.id, NOW, 10, 900)),
      );
      const granted = tickets.filter((x) => x?.granted);
      expect(granted).toHaveLength(10);
      // The one that reached the limit carries the lock; the others were counted before it.
      expect(granted.filter((x) => x?.granted && x.totp.locked_until === NOW + 900)).toHaveLength(1);
      expect(tickets.filter((x) => x && !x.granted && x.locked_until === NOW + 900)).toHaveLength(190);
      expect(await s.totps.get(app.id, t.id)).toMatchObject({ failed_attempts: 10, locked_until: NOW + 900 });
      // Still locked one second before the end, even for a code that would be right.
      expect(await s.totps.beginCodeCheck(app.id, t.id, NOW + 899, 10, 900)).toEqual({
        granted: false,
        locked_until: NOW + 900,
      });
      // A lock that has passed starts a new count.
      const next = await s.totps.beginCodeCheck(app.id, t.id, NOW + 900, 10, 900);
      expect(next).toMatchObject({ granted: true, totp: { failed_attempts: 1, locked_until: null } });
      // A success clears the count.
      expect(await s.totps.useStep(app.id, t.id, 5)).toBe(true);
      expect(await s.totps.get(app.id, t.id)).toMatchObject({ failed_attempts: 0, locked_until: null });
    });

    it('counts activation attempts on a pending TOTP, and activation clears them', async () => {
      const { s, app, user } = await setup();
      const t = makeTotp(app.id, user.id);
      await s.totps.createPending(t, []);
      const tickets = await Promise.all(
        Array.from({ length: 20 }, () => s.totps.beginCodeCheck(app.id, t.id, NOW, 3, 60)),
      );
      expect(tickets.filter((x) => x?.granted)).toHaveLength(3);
      await s.totps.beginCodeCheck(app.id, t.id, NOW + 60, 3, 60);
      expect(await s.totps.activate(app.id, t.id, NOW + 60, 7)).toMatchObject({
        failed_attempts: 0,
        locked_until: null,
      });
    });

    it('keeps recovery codes under their own count, not counting used codes, usable while TOTP codes are locked', async () => {
      const { s, app, user } = await setup();
      const t = makeTotp(app.id, user.id);
      const codes = codesFor(t, 3);
      await s.totps.createPending(t, codes);
      await s.totps.activate(app.id, t.id, NOW, 1);
      const [first, second, third] = codes.map((c) => c.code_hash) as [string, string, string];
      // TOTP codes locked: recovery still works, and clears both counts.
      for (let i = 0; i < 2; i++) await s.totps.beginCodeCheck(app.id, t.id, NOW, 2, 900);
      expect((await s.totps.get(app.id, t.id))?.locked_until).toBe(NOW + 900);
      expect(await s.totps.consumeRecoveryCode(app.id, t.id, first, NOW, 5, 900)).toEqual({ ok: true });
      expect(await s.totps.get(app.id, t.id)).toMatchObject({ failed_attempts: 0, locked_until: null });
      // Re-sending a used code does not count, however often.
      for (let i = 0; i < 8; i++)
        expect(await s.totps.consumeRecoveryCode(app.id, t.id, first, NOW, 5, 900)).toEqual({
          ok: false,
          reason: 'used',
        });
      expect((await s.totps.get(app.id, t.id))?.recovery_failed_attempts).toBe(0);
      // A burst of wrong codes: exactly the limit is judged, the rest find the lock.
      const burst = await Promise.all(
        Array.from({ length: 50 }, () =>
          s.totps.consumeRecoveryCode(app.id, t.id, uid('wrong'), NOW, 5, 900),
        ),
      );
      expect(burst.filter((r) => !r.ok && r.reason === 'not_found')).toHaveLength(5);
      expect(burst.filter((r) => !r.ok && r.reason === 'locked')).toHaveLength(45);
      expect(burst.filter((r) => !r.ok && r.reason !== 'used' && r.locked_until === NOW + 900)).toHaveLength(
        46,
      );
      // Locked: even a right code waits, and is not spent.
      expect(await s.totps.consumeRecoveryCode(app.id, t.id, second, NOW + 899, 5, 900)).toEqual({
        ok: false,
        reason: 'locked',
        locked_until: NOW + 900,
      });
      // Recovery's lock leaves TOTP codes alone.
      expect(await s.totps.beginCodeCheck(app.id, t.id, NOW, 2, 900)).toMatchObject({ granted: true });
      expect(await s.totps.consumeRecoveryCode(app.id, t.id, second, NOW + 900, 5, 900)).toEqual({
        ok: true,
      });
      expect(await s.totps.get(app.id, t.id)).toMatchObject({
        recovery_failed_attempts: 0,
        recovery_locked_until: null,
      });
      expect(await s.totps.consumeRecoveryCode(app.id, t.id, third, NOW + 900, 5, 900)).toEqual({ ok: true });
    });

    it('consumes each recovery code once, and deletes codes with their TOTP', async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const t = makeTotp(app.id, user.id);
      const codes = codesFor(t, 2);
      await s.totps.createPending(t, codes);
      expect(
        await s.totps.consumeRecoveryCode(other.app.id, t.id, codes[0]!.code_hash, NOW, 10, 900),
      ).toEqual({
        ok: false,
        reason: 'not_found',
        locked_until: null,
      });
      const both = await Promise.all([
        s.totps.consumeRecoveryCode(app.id, t.id, codes[0]!.code_hash, NOW, 10, 900),
        s.totps.consumeRecoveryCode(app.id, t.id, codes[0]!.code_hash, NOW, 10, 900),
      ]);
      expect(both.filter((r) => r.ok)).toHaveLength(1);
      expect(await s.totps.consumeRecoveryCode(app.id, t.id, codes[0]!.code_hash, NOW, 10, 900)).toEqual({
        ok: false,
        reason: 'used',
      });
      expect(await s.totps.delete(other.app.id, t.id)).toBeNull();
      expect(await s.totps.delete(app.id, t.id)).toEqual(t);
      expect(await s.totps.consumeRecoveryCode(app.id, t.id, codes[1]!.code_hash, NOW, 10, 900)).toEqual({
        ok: false,
        reason: 'not_found',
        locked_until: null,
      });
      expect(await s.totps.getForUser(app.id, user.id)).toBeNull();
    });
  });
}
