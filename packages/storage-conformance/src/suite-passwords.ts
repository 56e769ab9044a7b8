import type { PasswordRecord, Storage } from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { appWithUser, makeSession, makeUser, NOW } from './fixtures.js';

export function makePassword(
  appId: string,
  userId: string,
  over: Partial<PasswordRecord> = {},
): PasswordRecord {
  return {
    app_id: appId,
    user_id: userId,
    hash: '$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA',
    failed_attempts: 0,
    locked_until: null,
    created_at: NOW,
    updated_at: NOW,
    ...over,
  };
}

/**
 * Passwords: one per user, the lock-out counted atomically before a check, a rehash that never
 * overwrites a change; and the revocation of a user's other sessions a password change makes.
 */
export function passwordRepoCases(storage: () => Storage, parallelism = 1): void {
  const setup = () => appWithUser(storage());

  describe('passwords', () => {
    it('stores one password per user, replaces it, and keeps Apps apart', async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const p = makePassword(app.id, user.id);
      expect(await s.passwords.insert(p, 'created')).toEqual({ inserted: true });
      expect(await s.passwords.insert({ ...p, hash: 'second' }, 'created')).toEqual({ inserted: false });
      expect(await s.passwords.get(app.id, user.id)).toEqual(p);
      expect(await s.passwords.get(other.app.id, user.id)).toBeNull();
      expect(await s.passwords.replace(other.app.id, user.id, 'x', NOW + 1, 'imported')).toBeNull();
      const replaced = await s.passwords.replace(app.id, user.id, 'new-hash', NOW + 5, 'reset_by_email');
      expect(replaced).toEqual({ ...p, hash: 'new-hash', updated_at: NOW + 5 });
      expect(await s.passwords.get(app.id, user.id)).toEqual(replaced);
      const stranger = makeUser(app.id);
      expect(await s.passwords.replace(app.id, stranger.id, 'h', NOW, 'reset_by_session')).toBeNull();
    });

    it('counts attempts before a check, locks at the limit, refuses while locked, restarts after', async () => {
      const { s, app, user } = await setup();
      expect(await s.passwords.beginCheck(app.id, user.id, NOW, 3, 60)).toBeNull();
      await s.passwords.insert(makePassword(app.id, user.id), 'created');
      for (let i = 1; i <= 3; i++) {
        const ticket = await s.passwords.beginCheck(app.id, user.id, NOW, 3, 60);
        expect(ticket).toMatchObject({ granted: true, password: { failed_attempts: i } });
        if (ticket?.granted) expect(ticket.password.locked_until).toBe(i === 3 ? NOW + 60 : null);
      }
      expect(await s.passwords.beginCheck(app.id, user.id, NOW + 59, 3, 60)).toEqual({
        granted: false,
        locked_until: NOW + 60,
      });
      const after = await s.passwords.beginCheck(app.id, user.id, NOW + 60, 3, 60);
      expect(after).toMatchObject({ granted: true, password: { failed_attempts: 1, locked_until: null } });
      await s.passwords.succeeded(app.id, user.id, NOW + 61);
      expect(await s.passwords.get(app.id, user.id)).toMatchObject({
        failed_attempts: 0,
        locked_until: null,
      });
    });

    it('lets exactly maxFailures of concurrent attempts through', async () => {
      const { s, app, user } = await setup();
      await s.passwords.insert(makePassword(app.id, user.id), 'created');
      const tickets = await Promise.all(
        Array.from({ length: Math.max(20, parallelism * 4) }, () =>
          s.passwords.beginCheck(app.id, user.id, NOW, 5, 60),
        ),
      );
      expect(tickets.filter((t) => t?.granted)).toHaveLength(5);
    });

    it('rehashes only while the hash is the one checked', async () => {
      const { s, app, user } = await setup();
      const p = makePassword(app.id, user.id, { hash: 'old' });
      await s.passwords.insert(p, 'imported');
      await s.passwords.beginCheck(app.id, user.id, NOW, 5, 60);
      await s.passwords.succeeded(app.id, user.id, NOW + 1, { from: 'old', to: 'argon' });
      expect(await s.passwords.get(app.id, user.id)).toMatchObject({
        hash: 'argon',
        failed_attempts: 0,
        updated_at: NOW + 1,
      });
      await s.passwords.succeeded(app.id, user.id, NOW + 2, { from: 'old', to: 'stale' });
      expect((await s.passwords.get(app.id, user.id))?.hash).toBe('argon');
    });
  });

  describe('sessions of a user', () => {
    it("revokes a user's live sessions but one, and no one else's", async () => {
      const { s, app, user } = await setup();
      const other = makeUser(app.id);
      await s.users.insert(other);
      const [a, b, keep] = [0, 1, 2].map(() => makeSession(app.id, user.id));
      const theirs = makeSession(app.id, other.id);
      for (const session of [a!, b!, keep!, theirs]) await s.sessions.insert(session);
      await s.sessions.revoke(app.id, b!.id, NOW);
      const revoked = await s.sessions.revokeByUser(app.id, user.id, NOW + 1, keep!.id);
      expect(revoked.map((r) => r.id)).toEqual([a!.id]);
      expect(revoked[0]).toMatchObject({ revoked_at: NOW + 1, updated_at: NOW + 1 });
      expect((await s.sessions.get(app.id, keep!.id))?.revoked_at).toBeNull();
      expect((await s.sessions.get(app.id, theirs.id))?.revoked_at).toBeNull();
      expect((await s.sessions.get(app.id, b!.id))?.revoked_at).toBe(NOW);
      const all = await s.sessions.revokeByUser(app.id, user.id, NOW + 2);
      expect(all.map((r) => r.id)).toEqual([keep!.id]);
    });

    it("lists a user's live sessions, the most recently active first, and no one else's", async () => {
      const { s, app, user } = await setup();
      const stranger = makeUser(app.id);
      await s.users.insert(stranger);
      const elsewhere = await appWithUser(s);
      const older = makeSession(app.id, user.id, { last_active_at: NOW - 50 });
      const newer = makeSession(app.id, user.id, {
        last_active_at: NOW - 10,
        device_fingerprint: {
          user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0',
          ip: '203.0.113.9',
        },
      });
      const revoked = makeSession(app.id, user.id, { last_active_at: NOW });
      const expired = makeSession(app.id, user.id, { last_active_at: NOW, expires_at: NOW });
      const theirs = makeSession(app.id, stranger.id);
      const foreign = makeSession(elsewhere.app.id, elsewhere.user.id);
      for (const session of [older, newer, revoked, expired, theirs, foreign])
        await s.sessions.insert(session);
      await s.sessions.revoke(app.id, revoked.id, NOW, 'user');
      expect(await s.sessions.listLiveByUser(app.id, user.id, NOW)).toEqual([newer, older]);
      expect(await s.sessions.listLiveByUser(elsewhere.app.id, user.id, NOW)).toEqual([]);
      expect(await s.sessions.listLiveByUser(app.id, user.id, NOW + 3600)).toEqual([]);
    });

    it('of concurrent revokes of one session, exactly one gets it', async () => {
      const { s, app, user } = await setup();
      const session = makeSession(app.id, user.id);
      await s.sessions.insert(session);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => s.sessions.revoke(app.id, session.id, NOW + i, 'admin')),
      );
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    });
  });
}
