import type { Storage, WebAuthnChallengeRecord, WebAuthnCredentialRecord } from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { appWithUser, NOW, uid } from './fixtures.js';

export function makeWebAuthnCredential(
  appId: string,
  userId: string,
  over: Partial<WebAuthnCredentialRecord> = {},
): WebAuthnCredentialRecord {
  return {
    id: uid('webauthn'),
    app_id: appId,
    user_id: userId,
    credential_id: uid('cred'),
    public_key: uid('pk'),
    sign_count: 0,
    transports: ['internal', 'hybrid'],
    aaguid: '00000000-0000-0000-0000-000000000000',
    rp_id: 'example.com',
    authenticator_type: 'platform',
    device_type: 'multiDevice',
    backed_up: true,
    name: null,
    created_at: NOW,
    last_used_at: null,
    ...over,
  };
}

export function makeWebAuthnChallenge(
  appId: string,
  userId: string | null,
  over: Partial<WebAuthnChallengeRecord> = {},
): WebAuthnChallengeRecord {
  return {
    id: uid('challenge'),
    app_id: appId,
    user_id: userId,
    challenge_hash: uid('ch'),
    ceremony: 'registration',
    rp_id: 'example.com',
    user_verification: 'preferred',
    authenticator_type: 'platform',
    expires_at: NOW + 300,
    used_at: null,
    created_at: NOW,
    ...over,
  };
}

/** WebAuthn credentials and challenges: single-use challenges, one credential id per App, forward-only counters. */
export function webauthnRepoCases(storage: () => Storage): void {
  const setup = () => appWithUser(storage());

  describe('webauthn challenges', () => {
    it('consumes a challenge once, for its App and ceremony only, and says why not otherwise', async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const c = makeWebAuthnChallenge(app.id, user.id);
      await s.webauthn.insertChallenge(c);
      expect(await s.webauthn.consumeChallenge(other.app.id, c.challenge_hash, 'registration', NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await s.webauthn.consumeChallenge(app.id, c.challenge_hash, 'authentication', NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await s.webauthn.consumeChallenge(app.id, c.challenge_hash, 'registration', NOW + 5)).toEqual({
        ok: true,
        challenge: { ...c, used_at: NOW + 5 },
      });
      expect(await s.webauthn.consumeChallenge(app.id, c.challenge_hash, 'registration', NOW + 6)).toEqual({
        ok: false,
        reason: 'used',
      });
    });

    it('refuses an expired challenge and keeps a discoverable one (no user)', async () => {
      const { s, app } = await setup();
      const c = makeWebAuthnChallenge(app.id, null, { ceremony: 'authentication', authenticator_type: null });
      await s.webauthn.insertChallenge(c);
      expect(
        await s.webauthn.consumeChallenge(app.id, c.challenge_hash, 'authentication', NOW + 300),
      ).toEqual({
        ok: false,
        reason: 'expired',
      });
      const live = makeWebAuthnChallenge(app.id, null, {
        ceremony: 'authentication',
        authenticator_type: null,
      });
      await s.webauthn.insertChallenge(live);
      const result = await s.webauthn.consumeChallenge(app.id, live.challenge_hash, 'authentication', NOW);
      expect(result).toEqual({ ok: true, challenge: { ...live, used_at: NOW } });
    });

    it('lets exactly one of 10 concurrent consumes win', async () => {
      const { s, app, user } = await setup();
      const c = makeWebAuthnChallenge(app.id, user.id);
      await s.webauthn.insertChallenge(c);
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          s.webauthn.consumeChallenge(app.id, c.challenge_hash, 'registration', NOW),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok).map((r) => !r.ok && r.reason)).toEqual(Array(9).fill('used'));
    });

    it("deletes only the App's challenges that expired before the cut-off", async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const old = makeWebAuthnChallenge(app.id, user.id, { expires_at: NOW - 10 });
      const fresh = makeWebAuthnChallenge(app.id, user.id, { expires_at: NOW + 10 });
      const elsewhere = makeWebAuthnChallenge(other.app.id, other.user.id, { expires_at: NOW - 10 });
      for (const c of [old, fresh, elsewhere]) await s.webauthn.insertChallenge(c);
      await s.webauthn.deleteExpiredChallenges(app.id, NOW);
      const consume = (c: WebAuthnChallengeRecord) =>
        s.webauthn.consumeChallenge(c.app_id, c.challenge_hash, 'registration', NOW - 100);
      expect(await consume(old)).toEqual({ ok: false, reason: 'not_found' });
      expect((await consume(fresh)).ok).toBe(true);
      expect((await consume(elsewhere)).ok).toBe(true);
    });
  });

  describe('webauthn credentials', () => {
    it('inserts, reads by id and by credential id, lists by user oldest first, and deletes', async () => {
      const { s, app, user } = await setup();
      const a = makeWebAuthnCredential(app.id, user.id, { name: 'Laptop', created_at: NOW + 1 });
      const b = makeWebAuthnCredential(app.id, user.id, { authenticator_type: null, transports: [] });
      expect(await s.webauthn.insertCredential(a)).toEqual({ inserted: true });
      expect(await s.webauthn.insertCredential(b)).toEqual({ inserted: true });
      expect(await s.webauthn.get(app.id, a.id)).toEqual(a);
      expect(await s.webauthn.findByCredentialId(app.id, b.credential_id)).toEqual(b);
      expect(await s.webauthn.listByUser(app.id, user.id)).toEqual([b, a]);
      expect(await s.webauthn.delete(app.id, a.id)).toEqual(a);
      expect(await s.webauthn.get(app.id, a.id)).toBeNull();
      expect(await s.webauthn.delete(app.id, a.id)).toBeNull();
      expect(await s.webauthn.listByUser(app.id, user.id)).toEqual([b]);
    });

    it('keeps one registration per credential id in an App, but allows it in another App', async () => {
      const { s, app, user } = await setup();
      const first = makeWebAuthnCredential(app.id, user.id);
      await s.webauthn.insertCredential(first);
      const again = makeWebAuthnCredential(app.id, user.id, { credential_id: first.credential_id });
      expect(await s.webauthn.insertCredential(again)).toEqual({ inserted: false });
      expect(await s.webauthn.get(app.id, again.id)).toBeNull();
      const other = await setup();
      const elsewhere = makeWebAuthnCredential(other.app.id, other.user.id, {
        credential_id: first.credential_id,
      });
      expect(await s.webauthn.insertCredential(elsewhere)).toEqual({ inserted: true });
      expect(await s.webauthn.findByCredentialId(app.id, first.credential_id)).toEqual(first);
      expect(await s.webauthn.findByCredentialId(other.app.id, first.credential_id)).toEqual(elsewhere);
    });

    it('lets exactly one of 10 concurrent registrations of one credential id win', async () => {
      const { s, app, user } = await setup();
      const credential_id = uid('race');
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          s.webauthn.insertCredential(makeWebAuthnCredential(app.id, user.id, { credential_id })),
        ),
      );
      expect(results.filter((r) => r.inserted)).toHaveLength(1);
      expect(await s.webauthn.listByUser(app.id, user.id)).toHaveLength(1);
    });

    it('never shows or changes one App a credential of another', async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const c = makeWebAuthnCredential(app.id, user.id);
      await s.webauthn.insertCredential(c);
      expect(await s.webauthn.get(other.app.id, c.id)).toBeNull();
      expect(await s.webauthn.findByCredentialId(other.app.id, c.credential_id)).toBeNull();
      expect(await s.webauthn.listByUser(other.app.id, user.id)).toEqual([]);
      expect(await s.webauthn.recordUse(other.app.id, c.id, 5, NOW)).toBe('not_found');
      expect(await s.webauthn.delete(other.app.id, c.id)).toBeNull();
      expect(await s.webauthn.get(app.id, c.id)).toEqual(c);
    });

    it('advances the counter only forward; 0 after 0 is allowed, anything else is a regression', async () => {
      const { s, app, user } = await setup();
      const never = makeWebAuthnCredential(app.id, user.id);
      await s.webauthn.insertCredential(never);
      expect(await s.webauthn.recordUse(app.id, never.id, 0, NOW + 1)).toBe('ok');
      expect(await s.webauthn.get(app.id, never.id)).toEqual({ ...never, last_used_at: NOW + 1 });

      const counting = makeWebAuthnCredential(app.id, user.id, { sign_count: 5 });
      await s.webauthn.insertCredential(counting);
      for (const stale of [5, 4, 0]) {
        expect(await s.webauthn.recordUse(app.id, counting.id, stale, NOW + 2)).toBe('counter_regression');
      }
      expect(await s.webauthn.get(app.id, counting.id)).toEqual(counting);
      expect(await s.webauthn.recordUse(app.id, counting.id, 9, NOW + 3)).toBe('ok');
      expect(await s.webauthn.get(app.id, counting.id)).toEqual({
        ...counting,
        sign_count: 9,
        last_used_at: NOW + 3,
      });
      expect(await s.webauthn.recordUse(app.id, uid('webauthn'), 10, NOW)).toBe('not_found');
    });

    it('lets exactly one of 10 concurrent uses with the same count through', async () => {
      const { s, app, user } = await setup();
      const c = makeWebAuthnCredential(app.id, user.id, { sign_count: 1 });
      await s.webauthn.insertCredential(c);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => s.webauthn.recordUse(app.id, c.id, 2, NOW)),
      );
      expect(results.filter((r) => r === 'ok')).toHaveLength(1);
      expect((await s.webauthn.get(app.id, c.id))?.sign_count).toBe(2);
    });
  });
}
