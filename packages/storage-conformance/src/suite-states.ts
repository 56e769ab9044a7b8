import type { DeviceRequirement, Storage } from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { appWithUser, makeContact, makeMagicLink, makeOtp, makeSession, NOW, uid } from './fixtures.js';
import { makeTotp } from './suite-totps.js';
import { makeWalletChallenge } from './suite-wallet-challenges.js';
import { makeWebAuthnChallenge } from './suite-webauthn.js';

/**
 * Every combination of the states a single-use record can be in at once (used and expired,
 * locked and expired, another App's and expired, ...), on every consume and check of Storage.
 * Each table lists its conditions in the documented order, the first that holds wins, so both
 * implementations must rank the failure reasons the same way, and must leave the record in the
 * same state: each case calls twice, and the second answer shows what the first one wrote.
 */

/** Every non-empty combination of `conditions`, plus the empty one (the happy path). */
export function combinations<C extends string>(conditions: readonly C[]): Set<C>[] {
  const out: Set<C>[] = [];
  for (let mask = 0; mask < 1 << conditions.length; mask++)
    out.push(new Set(conditions.filter((_, i) => mask & (1 << i))));
  return out;
}

/** The first of `order` present in the state; null when none is (the operation succeeds). */
export function winner<C extends string>(order: readonly C[], state: ReadonlySet<C>): C | null {
  return order.find((c) => state.has(c)) ?? null;
}

const label = (state: ReadonlySet<string>) => (state.size === 0 ? 'clean' : [...state].join(' + '));

const SENT = { ip: '203.0.113.7', user_agent: 'Test/1.0' };
const device = (mismatch: boolean): DeviceRequirement => [
  { field: 'ip', value: mismatch ? '198.51.100.9' : SENT.ip },
];
/** A state flag for a failed-attempt count: one short of the limit, or at it. */
const MAX = 3;
const failedSoFar = (atLimit: boolean) => (atLimit ? MAX : MAX - 1);

export function stateTableCases(storage: () => Storage): void {
  const setup = async () => {
    const base = await appWithUser(storage());
    const email = makeContact(base.app.id, base.user.id);
    await base.s.emails.insert(email);
    return { ...base, email };
  };

  describe('overlapping states: which failure wins', () => {
    describe('otps.consume', () => {
      const order = [
        'wrong_app',
        'used',
        'too_many_attempts',
        'expired',
        'mismatch',
        'device_mismatch',
      ] as const;
      type C = (typeof order)[number];
      const reason = (c: C | null) => (c === 'wrong_app' ? 'not_found' : c);
      const counted = (c: C | null) => c === 'mismatch' || c === 'device_mismatch';
      for (const state of combinations(order)) {
        const first = winner(order, state);
        // A counted failure takes the code from one short of the limit to the limit.
        const second =
          first === null
            ? 'used'
            : reason(
                winner(order, counted(first) ? new Set([...state, 'too_many_attempts' as const]) : state),
              );
        it(`${label(state)} → ${reason(first) ?? 'ok'}, then ${second}`, async () => {
          const { s, app, user, email } = await setup();
          const otp = makeOtp(app.id, user.id, email.id, {
            attempts: failedSoFar(state.has('too_many_attempts')),
            used_at: state.has('used') ? NOW - 5 : null,
            expires_at: state.has('expired') ? NOW : NOW + 600,
            device_fingerprint: SENT,
          });
          await s.otps.replace(otp);
          const call = () =>
            s.otps.consume(
              state.has('wrong_app') ? uid('app') : app.id,
              email.id,
              state.has('mismatch') ? uid('wrong') : otp.code_hash,
              NOW,
              MAX,
              device(state.has('device_mismatch')),
            );
          const got = await call();
          if (first === null) expect(got).toEqual({ ok: true, otp: { ...otp, used_at: NOW } });
          else expect(got).toEqual({ ok: false, reason: reason(first) });
          expect(await call()).toEqual({ ok: false, reason: second });
        });
      }
    });

    describe('magicLinks.consume', () => {
      const order = ['wrong_app', 'used', 'too_many_attempts', 'expired', 'device_mismatch'] as const;
      type C = (typeof order)[number];
      const reason = (c: C | null) => (c === 'wrong_app' ? 'not_found' : c);
      for (const state of combinations(order)) {
        const first = winner(order, state);
        const second =
          first === null
            ? 'used'
            : reason(
                winner(
                  order,
                  first === 'device_mismatch' ? new Set([...state, 'too_many_attempts' as const]) : state,
                ),
              );
        it(`${label(state)} → ${reason(first) ?? 'ok'}, then ${second}`, async () => {
          const { s, app, user, email } = await setup();
          const link = makeMagicLink(app.id, user.id, email.id, {
            attempts: failedSoFar(state.has('too_many_attempts')),
            used_at: state.has('used') ? NOW - 5 : null,
            expires_at: state.has('expired') ? NOW : NOW + 600,
            device_fingerprint: SENT,
          });
          await s.magicLinks.insert(link);
          const call = () =>
            s.magicLinks.consume(
              state.has('wrong_app') ? uid('app') : app.id,
              link.token_hash,
              NOW,
              MAX,
              device(state.has('device_mismatch')),
            );
          const got = await call();
          if (first === null) expect(got).toEqual({ ok: true, link: { ...link, used_at: NOW } });
          else expect(got).toEqual({ ok: false, reason: reason(first) });
          expect(await call()).toEqual({ ok: false, reason: second });
        });
      }
    });

    describe('walletChallenges.consume', () => {
      const order = ['wrong_app', 'used', 'expired'] as const;
      type C = (typeof order)[number];
      const reason = (c: C | null) => (c === 'wrong_app' ? 'not_found' : c);
      for (const state of combinations(order)) {
        const first = winner(order, state);
        const second = first === null ? 'used' : reason(first);
        it(`${label(state)} → ${reason(first) ?? 'ok'}, then ${second}`, async () => {
          const { s, app } = await setup();
          const c = makeWalletChallenge(app.id, {
            used_at: state.has('used') ? NOW - 5 : null,
            expires_at: state.has('expired') ? NOW : NOW + 300,
          });
          await s.walletChallenges.insert(c);
          const call = () =>
            s.walletChallenges.consume(state.has('wrong_app') ? uid('app') : app.id, c.nonce, NOW);
          const got = await call();
          if (first === null) expect(got).toEqual({ ok: true, challenge: { ...c, used_at: NOW } });
          else expect(got).toEqual({ ok: false, reason: reason(first) });
          expect(await call()).toEqual({ ok: false, reason: second });
        });
      }
    });

    describe('webauthn.consumeChallenge', () => {
      const order = ['wrong_app', 'wrong_ceremony', 'used', 'expired'] as const;
      type C = (typeof order)[number];
      const reason = (c: C | null) => (c === 'wrong_app' || c === 'wrong_ceremony' ? 'not_found' : c);
      for (const state of combinations(order)) {
        const first = winner(order, state);
        const second = first === null ? 'used' : reason(first);
        it(`${label(state)} → ${reason(first) ?? 'ok'}, then ${second}`, async () => {
          const { s, app, user } = await setup();
          const c = makeWebAuthnChallenge(app.id, user.id, {
            used_at: state.has('used') ? NOW - 5 : null,
            expires_at: state.has('expired') ? NOW : NOW + 300,
          });
          await s.webauthn.insertChallenge(c);
          const call = () =>
            s.webauthn.consumeChallenge(
              state.has('wrong_app') ? uid('app') : app.id,
              c.challenge_hash,
              state.has('wrong_ceremony') ? 'authentication' : 'registration',
              NOW,
            );
          const got = await call();
          if (first === null) expect(got).toEqual({ ok: true, challenge: { ...c, used_at: NOW } });
          else expect(got).toEqual({ ok: false, reason: reason(first) });
          expect(await call()).toEqual({ ok: false, reason: second });
        });
      }
    });

    describe('sessions.touch and sessions.revoke', () => {
      const conditions = ['wrong_app', 'revoked', 'expired'] as const;
      for (const state of combinations(conditions)) {
        // touch needs a live session; revoke only an unrevoked one of the App (expired or not).
        const touches = state.size === 0;
        const revokes = !state.has('wrong_app') && !state.has('revoked');
        it(`${label(state)} → touch ${touches ? 'ok' : 'null'}, revoke ${revokes ? 'ok' : 'null'}`, async () => {
          const { s, app, user } = await setup();
          const session = makeSession(app.id, user.id, {
            revoked_at: state.has('revoked') ? NOW - 5 : null,
            expires_at: state.has('expired') ? NOW : NOW + 3600,
          });
          await s.sessions.insert(session);
          const appId = state.has('wrong_app') ? uid('app') : app.id;
          const touched = await s.sessions.touch(appId, session.id, NOW, { expiresAt: NOW + 7200 });
          expect(touched).toEqual(
            touches ? { ...session, expires_at: NOW + 7200, last_active_at: NOW, updated_at: NOW } : null,
          );
          const revoked = await s.sessions.revoke(appId, session.id, NOW + 1);
          expect(revoked?.revoked_at ?? null).toBe(revokes ? NOW + 1 : null);
          // Revoked now whatever it was: nothing touches it any more.
          expect(await s.sessions.touch(appId, session.id, NOW + 1, {})).toBeNull();
        });
      }
    });

    describe('totps.activate', () => {
      const conditions = ['wrong_app', 'active', 'expired'] as const;
      for (const state of combinations(conditions)) {
        const activates = state.size === 0;
        it(`${label(state)} → ${activates ? 'activated' : 'null'}`, async () => {
          const { s, app, user } = await setup();
          const t = makeTotp(app.id, user.id, { expires_at: NOW + 10 });
          await s.totps.createPending(t, []);
          if (state.has('active')) expect(await s.totps.activate(app.id, t.id, NOW, 1)).not.toBeNull();
          const at = state.has('expired') ? NOW + 10 : NOW + 9;
          const got = await s.totps.activate(state.has('wrong_app') ? uid('app') : app.id, t.id, at, 2);
          if (activates)
            expect(got).toEqual({
              ...t,
              status: 'active',
              verified_at: at,
              last_used_step: 2,
              failed_attempts: 0,
            });
          else expect(got).toBeNull();
          expect((await s.totps.get(app.id, t.id))?.status).toBe(
            state.has('active') || activates ? 'active' : 'pending',
          );
        });
      }
    });

    describe('totps.useStep', () => {
      // The lock is beginCodeCheck's: a step checked under it is still recorded.
      const conditions = ['wrong_app', 'replay', 'locked'] as const;
      for (const state of combinations(conditions)) {
        const uses = !state.has('wrong_app') && !state.has('replay');
        it(`${label(state)} → ${uses}`, async () => {
          const { s, app, user } = await setup();
          const t = makeTotp(app.id, user.id);
          await s.totps.createPending(t, []);
          await s.totps.activate(app.id, t.id, NOW, 5);
          if (state.has('locked')) await s.totps.beginCodeCheck(app.id, t.id, NOW, 1, 60);
          const step = state.has('replay') ? 5 : 6;
          expect(await s.totps.useStep(state.has('wrong_app') ? uid('app') : app.id, t.id, step)).toBe(uses);
          const after = await s.totps.get(app.id, t.id);
          expect(after?.last_used_step).toBe(uses ? 6 : 5);
          expect(after?.locked_until).toBe(state.has('locked') && !uses ? NOW + 60 : null);
        });
      }
    });

    describe('totps.beginCodeCheck', () => {
      // Locked (until after now), lock passed (until exactly now), one short of the limit.
      const conditions = [
        'wrong_app',
        'locked',
        'lock_passed',
        'near_limit',
        'pending_expired',
        'recovery_locked',
      ] as const;
      for (const state of combinations(conditions)) {
        if (state.has('locked') && state.has('lock_passed')) continue; // one lock at a time
        const expected = state.has('wrong_app')
          ? 'null'
          : state.has('locked')
            ? 'refused'
            : state.has('near_limit') && !state.has('lock_passed')
              ? 'granted, locks'
              : 'granted';
        it(`${label(state)} → ${expected}`, async () => {
          const { s, app, user } = await setup();
          const lock = state.has('locked') ? NOW + 1 : state.has('lock_passed') ? NOW : null;
          const t = makeTotp(app.id, user.id, {
            status: state.has('pending_expired') ? 'pending' : 'active',
            expires_at: state.has('pending_expired') ? NOW - 1 : NOW + 1800,
            failed_attempts: state.has('near_limit') ? MAX - 1 : lock === null ? 0 : MAX,
            locked_until: lock,
            recovery_locked_until: state.has('recovery_locked') ? NOW + 100 : null,
            recovery_failed_attempts: state.has('recovery_locked') ? MAX : 0,
          });
          await s.totps.createPending(t, []);
          const got = await s.totps.beginCodeCheck(
            state.has('wrong_app') ? uid('app') : app.id,
            t.id,
            NOW,
            MAX,
            60,
          );
          if (expected === 'null') expect(got).toBeNull();
          else if (expected === 'refused') expect(got).toEqual({ granted: false, locked_until: NOW + 1 });
          else {
            const locks = expected === 'granted, locks';
            // A passed lock starts a new count, whatever the old one was.
            const count = state.has('lock_passed') ? 1 : (state.has('near_limit') ? MAX - 1 : 0) + 1;
            expect(got).toEqual({
              granted: true,
              totp: { ...t, failed_attempts: count, locked_until: locks ? NOW + 60 : null },
            });
          }
        });
      }
    });

    describe('totps.consumeRecoveryCode', () => {
      // Documented order: no TOTP, then the recovery lock, then an unknown code (counted), then
      // a used one (not counted). The TOTP code lock and a passed recovery lock change nothing.
      const order = ['wrong_app', 'recovery_locked', 'wrong_code', 'used'] as const;
      const extra = ['totp_locked', 'recovery_lock_passed'] as const;
      for (const state of combinations([...order, ...extra])) {
        if (state.has('recovery_locked') && state.has('recovery_lock_passed')) continue;
        const first = winner(order, state as Set<(typeof order)[number]>);
        it(`${label(state)} → ${first ?? 'ok'}`, async () => {
          const { s, app, user } = await setup();
          const lock = state.has('recovery_locked')
            ? NOW + 1
            : state.has('recovery_lock_passed')
              ? NOW
              : null;
          const t = makeTotp(app.id, user.id, {
            status: 'active',
            locked_until: state.has('totp_locked') ? NOW + 100 : null,
            failed_attempts: state.has('totp_locked') ? MAX : 0,
            recovery_locked_until: lock,
            recovery_failed_attempts: lock === null ? MAX - 1 : MAX,
          });
          const code = {
            id: uid('rc'),
            app_id: app.id,
            user_id: user.id,
            totp_id: t.id,
            code_hash: uid('rch'),
            used_at: state.has('used') ? NOW - 5 : null,
            created_at: NOW,
          };
          await s.totps.createPending(t, [code]);
          const got = await s.totps.consumeRecoveryCode(
            state.has('wrong_app') ? uid('app') : app.id,
            t.id,
            state.has('wrong_code') ? uid('nope') : code.code_hash,
            NOW,
            MAX,
            60,
          );
          const after = await s.totps.get(app.id, t.id);
          if (first === 'wrong_app')
            expect(got).toEqual({ ok: false, reason: 'not_found', locked_until: null });
          else if (first === 'recovery_locked')
            expect(got).toEqual({ ok: false, reason: 'locked', locked_until: NOW + 1 });
          else if (first === 'wrong_code') {
            // One short of the limit counts to it and locks; a passed lock starts again at one.
            const locks = lock === null;
            expect(got).toEqual({ ok: false, reason: 'not_found', locked_until: locks ? NOW + 60 : null });
            expect(after?.recovery_failed_attempts).toBe(locks ? MAX : 1);
          } else if (first === 'used') expect(got).toEqual({ ok: false, reason: 'used' });
          else {
            expect(got).toEqual({ ok: true });
            // A success clears both lock-outs.
            expect(after).toMatchObject({
              failed_attempts: 0,
              locked_until: null,
              recovery_locked_until: null,
            });
          }
          if (first !== null && first !== 'wrong_code') {
            expect(after?.recovery_failed_attempts).toBe(t.recovery_failed_attempts);
            expect(after?.locked_until).toBe(t.locked_until);
          }
        });
      }
    });
  });
}
