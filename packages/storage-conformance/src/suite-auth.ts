import type { Factor, Storage } from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import {
  appWithUser,
  makeContact,
  makeMagicLink,
  makeOtp,
  makeSession,
  makeSigningKey,
  NOW,
  uid,
} from './fixtures.js';

/** Codes, sessions, signing keys and rate limits: the repositories whose atomicity matters most. */
export function authRepoCases(storage: () => Storage): void {
  const setup = async () => {
    const base = await appWithUser(storage());
    const email = makeContact(base.app.id, base.user.id);
    await base.s.emails.insert(email);
    return { ...base, email };
  };

  describe('otps', () => {
    it('consumes the right code once, and says why anything else fails', async () => {
      const { s, app, user, email } = await setup();
      const otp = makeOtp(app.id, user.id, email.id);
      await s.otps.replace(otp);
      expect(await s.otps.consume(app.id, uid('m'), otp.code_hash, NOW, 5, [])).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await s.otps.consume(app.id, email.id, 'wrong', NOW, 5, [])).toEqual({
        ok: false,
        reason: 'mismatch',
      });
      const ok = await s.otps.consume(app.id, email.id, otp.code_hash, NOW + 1, 5, []);
      expect(ok).toEqual({ ok: true, otp: { ...otp, attempts: 1, used_at: NOW + 1 } });
      expect(await s.otps.consume(app.id, email.id, otp.code_hash, NOW + 2, 5, [])).toEqual({
        ok: false,
        reason: 'used',
      });
    });

    it('refuses an expired code, even with the right hash', async () => {
      const { s, app, user, email } = await setup();
      const otp = makeOtp(app.id, user.id, email.id, { expires_at: NOW + 10 });
      await s.otps.replace(otp);
      expect(await s.otps.consume(app.id, email.id, otp.code_hash, NOW + 10, 5, [])).toEqual({
        ok: false,
        reason: 'expired',
      });
      expect(await s.otps.consume(app.id, email.id, otp.code_hash, NOW + 9, 5, [])).toMatchObject({
        ok: true,
      });
    });

    it('kills a code after the maximum of failed attempts', async () => {
      const { s, app, user, email } = await setup();
      const otp = makeOtp(app.id, user.id, email.id);
      await s.otps.replace(otp);
      for (let i = 0; i < 3; i++) {
        expect(await s.otps.consume(app.id, email.id, 'wrong', NOW, 3, [])).toEqual({
          ok: false,
          reason: 'mismatch',
        });
      }
      expect(await s.otps.consume(app.id, email.id, otp.code_hash, NOW, 3, [])).toEqual({
        ok: false,
        reason: 'too_many_attempts',
      });
    });

    it('keeps one code per method: a new one replaces the old', async () => {
      const { s, app, user, email } = await setup();
      const first = makeOtp(app.id, user.id, email.id);
      const second = makeOtp(app.id, user.id, email.id);
      await s.otps.replace(first);
      await s.otps.replace(second);
      expect(await s.otps.consume(app.id, email.id, first.code_hash, NOW, 5, [])).toEqual({
        ok: false,
        reason: 'mismatch',
      });
      expect(await s.otps.consume(app.id, email.id, second.code_hash, NOW, 5, [])).toMatchObject({
        ok: true,
      });
    });

    it('never consumes another App’s code, and deletes a method’s codes', async () => {
      const { s, app, user, email } = await setup();
      const other = await setup();
      const otp = makeOtp(app.id, user.id, email.id);
      await s.otps.replace(otp);
      expect(await s.otps.consume(other.app.id, email.id, otp.code_hash, NOW, 5, [])).toEqual({
        ok: false,
        reason: 'not_found',
      });
      await s.otps.deleteByMethod(other.app.id, email.id);
      await s.otps.deleteByMethod(app.id, email.id);
      expect(await s.otps.consume(app.id, email.id, otp.code_hash, NOW, 5, [])).toEqual({
        ok: false,
        reason: 'not_found',
      });
    });

    it('lets exactly one of 20 concurrent consumes of one code win', async () => {
      const { s, app, user, email } = await setup();
      const otp = makeOtp(app.id, user.id, email.id);
      await s.otps.replace(otp);
      const results = await Promise.all(
        Array.from({ length: 20 }, () => s.otps.consume(app.id, email.id, otp.code_hash, NOW, 5, [])),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok && r.reason === 'used')).toHaveLength(19);
    });
  });

  describe('device requirement (a wrong device spends nothing, and counts)', () => {
    it('otps: a right code from a wrong device is counted and left unspent; the right device then uses it', async () => {
      const { s, app, user, email } = await setup();
      const otp = makeOtp(app.id, user.id, email.id);
      await s.otps.replace(otp);
      const wrongIp = [{ field: 'ip' as const, value: '198.51.100.1' }];
      const noIp = [{ field: 'ip' as const, value: undefined }];
      expect(await s.otps.consume(app.id, email.id, otp.code_hash, NOW, 5, wrongIp)).toEqual({
        ok: false,
        reason: 'device_mismatch',
      });
      expect(await s.otps.consume(app.id, email.id, otp.code_hash, NOW, 5, noIp)).toEqual({
        ok: false,
        reason: 'device_mismatch',
      });
      const both = [
        { field: 'ip' as const, value: '203.0.113.7' },
        { field: 'user_agent' as const, value: 'Test/1.0' },
      ];
      const ok = await s.otps.consume(app.id, email.id, otp.code_hash, NOW, 5, both);
      expect(ok).toMatchObject({ ok: true, otp: { attempts: 2, used_at: NOW } });
    });

    it('otps: wrong devices use up the attempts like wrong codes', async () => {
      const { s, app, user, email } = await setup();
      const otp = makeOtp(app.id, user.id, email.id);
      await s.otps.replace(otp);
      const wrongUa = [{ field: 'user_agent' as const, value: 'Evil/1.0' }];
      for (let i = 0; i < 3; i++)
        expect((await s.otps.consume(app.id, email.id, otp.code_hash, NOW, 3, wrongUa)) as unknown).toEqual({
          ok: false,
          reason: 'device_mismatch',
        });
      expect(await s.otps.consume(app.id, email.id, otp.code_hash, NOW, 3, [])).toEqual({
        ok: false,
        reason: 'too_many_attempts',
      });
    });

    it('magic links: a wrong device is counted and leaves the link usable, until the attempts run out', async () => {
      const { s, app, user, email } = await setup();
      const link = makeMagicLink(app.id, user.id, email.id, { device_fingerprint: { ip: '192.0.2.1' } });
      await s.magicLinks.insert(link);
      const wrong = [{ field: 'ip' as const, value: '192.0.2.99' }];
      const right = [{ field: 'ip' as const, value: '192.0.2.1' }];
      expect(await s.magicLinks.consume(app.id, link.token_hash, NOW, 2, wrong)).toEqual({
        ok: false,
        reason: 'device_mismatch',
      });
      expect(await s.magicLinks.consume(app.id, link.token_hash, NOW, 2, right)).toEqual({
        ok: true,
        link: { ...link, attempts: 1, used_at: NOW },
      });
      const other = makeMagicLink(app.id, user.id, email.id, { device_fingerprint: { ip: '192.0.2.1' } });
      await s.magicLinks.insert(other);
      const burst = await Promise.all(
        Array.from({ length: 10 }, () => s.magicLinks.consume(app.id, other.token_hash, NOW, 2, wrong)),
      );
      expect(burst.filter((r) => !r.ok && r.reason === 'device_mismatch')).toHaveLength(2);
      expect(burst.filter((r) => !r.ok && r.reason === 'too_many_attempts')).toHaveLength(8);
      expect(await s.magicLinks.consume(app.id, other.token_hash, NOW, 2, right)).toEqual({
        ok: false,
        reason: 'too_many_attempts',
      });
    });
  });

  describe('magic links', () => {
    it('consumes a token once, in its App only, and says why anything else fails', async () => {
      const { s, app, user, email } = await setup();
      const other = await setup();
      const link = makeMagicLink(app.id, user.id, email.id, {
        kind: 'signup',
        device_fingerprint: { ip: '192.0.2.1' },
      });
      await s.magicLinks.insert(link);
      expect(await s.magicLinks.consume(other.app.id, link.token_hash, NOW, 5, [])).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await s.magicLinks.consume(app.id, uid('nope'), NOW, 5, [])).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await s.magicLinks.consume(app.id, link.token_hash, NOW + 1, 5, [])).toEqual({
        ok: true,
        link: { ...link, used_at: NOW + 1 },
      });
      expect(await s.magicLinks.consume(app.id, link.token_hash, NOW + 2, 5, [])).toEqual({
        ok: false,
        reason: 'used',
      });
    });

    it('refuses an expired link and deletes an email’s links', async () => {
      const { s, app, user, email } = await setup();
      const expired = makeMagicLink(app.id, user.id, email.id, { expires_at: NOW + 5 });
      await s.magicLinks.insert(expired);
      expect(await s.magicLinks.consume(app.id, expired.token_hash, NOW + 5, 5, [])).toEqual({
        ok: false,
        reason: 'expired',
      });
      const live = makeMagicLink(app.id, user.id, email.id);
      await s.magicLinks.insert(live);
      await s.magicLinks.deleteByEmail(app.id, email.id);
      expect(await s.magicLinks.consume(app.id, live.token_hash, NOW, 5, [])).toEqual({
        ok: false,
        reason: 'not_found',
      });
    });

    it('lets exactly one of 20 concurrent consumes of one token win', async () => {
      const { s, app, user, email } = await setup();
      const link = makeMagicLink(app.id, user.id, email.id);
      await s.magicLinks.insert(link);
      const results = await Promise.all(
        Array.from({ length: 20 }, () => s.magicLinks.consume(app.id, link.token_hash, NOW, 5, [])),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
    });
  });

  describe('sessions', () => {
    it('stores a session and finds it by id and token hash, in its App only', async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const session = makeSession(app.id, user.id);
      await s.sessions.insert(session);
      expect(await s.sessions.get(app.id, session.id)).toEqual(session);
      expect(await s.sessions.findByTokenHash(app.id, session.token_hash)).toEqual(session);
      expect(await s.sessions.get(other.app.id, session.id)).toBeNull();
      expect(await s.sessions.findByTokenHash(other.app.id, session.token_hash)).toBeNull();
      expect(await s.sessions.findByTokenHash(app.id, uid('nope'))).toBeNull();
    });

    it('names the App of a token hash across Apps, and none for an unknown hash', async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const mine = makeSession(app.id, user.id);
      const theirs = makeSession(other.app.id, other.user.id);
      await s.sessions.insert(mine);
      await s.sessions.insert(theirs);
      expect(await s.sessions.appIdByTokenHash(mine.token_hash)).toBe(app.id);
      expect(await s.sessions.appIdByTokenHash(theirs.token_hash)).toBe(other.app.id);
      expect(await s.sessions.appIdByTokenHash(uid('nope'))).toBeNull();
      // A hash two Apps hold (which chance never makes) names neither.
      await s.sessions.insert({ ...makeSession(other.app.id, other.user.id), token_hash: mine.token_hash });
      expect(await s.sessions.appIdByTokenHash(mine.token_hash)).toBeNull();
    });

    it('extends (never shortens), appends factors and refreshes activity', async () => {
      const { s, app, user } = await setup();
      const session = makeSession(app.id, user.id);
      await s.sessions.insert(session);
      const factor = smsFactor('phone_1', NOW + 5);
      const extended = await s.sessions.touch(app.id, session.id, NOW + 5, { expiresAt: NOW + 7200, factor });
      expect(extended).toEqual({
        ...session,
        expires_at: NOW + 7200,
        factors: [...session.factors, factor],
        last_active_at: NOW + 5,
        updated_at: NOW + 5,
      });
      const notShorter = await s.sessions.touch(app.id, session.id, NOW + 6, { expiresAt: NOW + 60 });
      expect(notShorter?.expires_at).toBe(NOW + 7200);
      expect(notShorter?.factors).toHaveLength(2);
      expect(await s.sessions.get(app.id, session.id)).toEqual(notShorter);
    });

    it('does not touch an expired, revoked or foreign session', async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const session = makeSession(app.id, user.id, { expires_at: NOW + 10 });
      await s.sessions.insert(session);
      expect(await s.sessions.touch(other.app.id, session.id, NOW, {})).toBeNull();
      expect(await s.sessions.touch(app.id, session.id, NOW + 10, { expiresAt: NOW + 999 })).toBeNull();
      const live = makeSession(app.id, user.id);
      await s.sessions.insert(live);
      expect(await s.sessions.revoke(other.app.id, live.id, NOW)).toBeNull();
      expect((await s.sessions.revoke(app.id, live.id, NOW + 1))?.revoked_at).toBe(NOW + 1);
      expect(await s.sessions.revoke(app.id, live.id, NOW + 2)).toBeNull();
      expect(await s.sessions.touch(app.id, live.id, NOW + 3, {})).toBeNull();
    });

    it('appends every factor of 10 concurrent touches', async () => {
      const { s, app, user } = await setup();
      const session = makeSession(app.id, user.id);
      await s.sessions.insert(session);
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          s.sessions.touch(app.id, session.id, NOW + 1, {
            factor: smsFactor(`phone_${i}`, NOW + 1),
          }),
        ),
      );
      expect((await s.sessions.get(app.id, session.id))?.factors).toHaveLength(11);
    });

    it('keeps one factor per (type, method_id): a repeat replaces it with the latest, concurrently too', async () => {
      const { s, app, user } = await setup();
      const session = makeSession(app.id, user.id);
      await s.sessions.insert(session);
      const [original] = session.factors;
      if (original?.type !== 'otp' || original.delivery_channel !== 'email')
        throw new Error('an email OTP factor');
      const again = (at: number): Factor => ({
        ...original,
        method: { ...original.method, last_verified_at: at },
      });
      const sms = smsFactor('phone_1', NOW + 1);
      await s.sessions.touch(app.id, session.id, NOW + 1, { factor: sms });
      const replaced = await s.sessions.touch(app.id, session.id, NOW + 2, { factor: again(NOW + 2) });
      expect(replaced?.factors).toEqual([sms, again(NOW + 2)]);
      // Same method, another type: a different factor.
      const magic: Factor = {
        ...original,
        type: 'magic_link',
        method: { ...original.method, last_verified_at: NOW + 3 },
      };
      expect((await s.sessions.touch(app.id, session.id, NOW + 3, { factor: magic }))?.factors).toHaveLength(
        3,
      );
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.sessions.touch(app.id, session.id, NOW + 4, { factor: again(NOW + 10 + i) }),
        ),
      );
      const factors = (await s.sessions.get(app.id, session.id))?.factors ?? [];
      expect(factors).toHaveLength(3);
      expect(
        factors.filter((f) => f.type === 'otp' && f.method.method_id === original.method.method_id),
      ).toHaveLength(1);
    });
  });

  describe('signing keys', () => {
    it('keeps one active key per App, under concurrent creation too', async () => {
      const { s, app } = await setup();
      expect(await s.signingKeys.getActive(app.id)).toBeNull();
      const keys = Array.from({ length: 10 }, () => makeSigningKey(app.id));
      const winners = await Promise.all(keys.map((k) => s.signingKeys.insertIfNoActive(k)));
      expect(new Set(winners.map((w) => w.id)).size).toBe(1);
      expect(await s.signingKeys.getActive(app.id)).toEqual(winners[0]);
      expect(await s.signingKeys.list(app.id)).toHaveLength(1);
    });

    it('retires the active key and lists old and new, newest first', async () => {
      const { s, app } = await setup();
      const other = await setup();
      const first = makeSigningKey(app.id);
      await s.signingKeys.insertIfNoActive(first);
      await s.signingKeys.retireActive(app.id, NOW + 5);
      expect(await s.signingKeys.getActive(app.id)).toBeNull();
      const second = makeSigningKey(app.id, { created_at: NOW + 6 });
      expect(await s.signingKeys.insertIfNoActive(second)).toEqual(second);
      expect(await s.signingKeys.list(app.id)).toEqual([second, { ...first, retired_at: NOW + 5 }]);
      expect(await s.signingKeys.list(other.app.id)).toEqual([]);
    });
  });

  describe('rate limits', () => {
    it('counts up to the limit per key and window, then refuses', async () => {
      const s = storage();
      const key = uid('rl');
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await s.rateLimits.hit(key, NOW, 3));
      expect(results).toEqual([
        { counted: true, count: 1 },
        { counted: true, count: 2 },
        { counted: true, count: 3 },
        { counted: false, count: 3 },
      ]);
      expect(await s.rateLimits.hit(key, NOW + 60, 3)).toEqual({ counted: true, count: 1 });
      expect(await s.rateLimits.hit(uid('rl'), NOW, 3)).toEqual({ counted: true, count: 1 });
    });

    it('counts exactly the limit of 30 concurrent hits', async () => {
      const s = storage();
      const key = uid('rl');
      const results = await Promise.all(Array.from({ length: 30 }, () => s.rateLimits.hit(key, NOW, 7)));
      expect(results.filter((r) => r.counted)).toHaveLength(7);
    });

    it('hitAll counts each window as hit does, independently, in the order given', async (ctx) => {
      const s = storage();
      if (!s.rateLimits.hitAll) return ctx.skip();
      const [a, b, c] = [uid('rl'), uid('rl'), uid('rl')];
      await s.rateLimits.hit(b, NOW, 2);
      await s.rateLimits.hit(b, NOW, 2);
      const hits = [
        { key: a, windowStart: NOW, limit: 3 },
        { key: b, windowStart: NOW, limit: 2 },
        { key: c, windowStart: NOW, limit: 0 },
      ];
      expect(await s.rateLimits.hitAll(hits)).toEqual([
        { counted: true, count: 1 },
        { counted: false, count: 2 },
        { counted: false, count: 0 },
      ]);
      expect(await s.rateLimits.hitAll(hits.slice(0, 1))).toEqual([{ counted: true, count: 2 }]);
      // The same key twice is two hits, as two calls of `hit` would be.
      expect(await s.rateLimits.hitAll([hits[0]!, hits[0]!])).toEqual([
        { counted: true, count: 3 },
        { counted: false, count: 3 },
      ]);
      expect(await s.rateLimits.hit(a, NOW + 60, 3)).toEqual({ counted: true, count: 1 });
    });

    it('hitAll counts exactly each limit of 30 concurrent calls sharing keys', async (ctx) => {
      const s = storage();
      if (!s.rateLimits.hitAll) return ctx.skip();
      const [shared, other] = [uid('rl'), uid('rl')];
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          s.rateLimits.hitAll!(
            // Half the callers name the keys in the other order: counting must not deadlock.
            i % 2 === 0
              ? [
                  { key: shared, windowStart: NOW, limit: 7 },
                  { key: other, windowStart: NOW, limit: 11 },
                ]
              : [
                  { key: other, windowStart: NOW, limit: 11 },
                  { key: shared, windowStart: NOW, limit: 7 },
                ],
          ),
        ),
      );
      const countedOf = (pos: (i: number) => number) => results.filter((r, i) => r[pos(i)]!.counted).length;
      expect(countedOf((i) => (i % 2 === 0 ? 0 : 1))).toBe(7);
      expect(countedOf((i) => (i % 2 === 0 ? 1 : 0))).toBe(11);
    });

    it('prunes ended windows', async () => {
      const s = storage();
      const key = uid('rl');
      await s.rateLimits.hit(key, NOW - 120, 1);
      await s.rateLimits.prune(NOW - 60);
      expect(await s.rateLimits.hit(key, NOW - 120, 1)).toEqual({ counted: true, count: 1 });
    });
  });
}

/** An SMS OTP factor, the spec's own example of a factor. */
function smsFactor(phoneNumberId: string, at: number): Factor {
  return {
    type: 'otp',
    delivery_channel: 'sms',
    method: {
      method_id: phoneNumberId,
      method_type: 'phone_number',
      phone_number_id: phoneNumberId,
      phone_number: '+14155550100',
      last_verified_at: at,
    },
  };
}
