import type { SessionRevocation, Storage } from '@latchkey/core';
import { describe, expect, it, type TestContext } from 'vitest';
import { appWithUser, makeSession, makeUser, NOW } from './fixtures.js';

/**
 * The record of revocations (`SessionRepo.revokedSince`, optional): what every process catches up
 * from to refuse a revoked session's JWTs. The database may be shared, so each case reads only
 * its own sessions out of the every-App answer.
 */
export function revocationRecordCases(storage: () => Storage): void {
  /** The storage's record, or a skipped case when it keeps none. */
  const recordOf = (ctx: TestContext) => {
    const s = storage();
    const read = s.sessions.revokedSince?.bind(s.sessions);
    if (!read) return ctx.skip();
    return read;
  };
  const only = (ids: Iterable<string>, found: SessionRevocation[]) => {
    const wanted = new Set(ids);
    return found.filter((r) => wanted.has(r.session_id));
  };

  describe('revocation record (revokedSince)', () => {
    it('records a revoke once, at its time, and no live session', async (ctx) => {
      const revokedSince = recordOf(ctx);
      const { s, app, user } = await appWithUser(storage());
      const revoked = makeSession(app.id, user.id);
      const live = makeSession(app.id, user.id);
      await s.sessions.insert(revoked);
      await s.sessions.insert(live);
      await s.sessions.revoke(app.id, revoked.id, NOW + 1);
      // A second revoke changes nothing, and leaves the first time.
      expect(await s.sessions.revoke(app.id, revoked.id, NOW + 2)).toBeNull();
      const entry = { app_id: app.id, session_id: revoked.id, revoked_at: NOW + 1 };
      expect(await revokedSince(NOW, app.id)).toEqual([entry]);
      expect(only([revoked.id, live.id], await revokedSince(NOW))).toEqual([entry]);
    });

    it('records every session revokeByUser revoked, not the one it kept nor another user’s', async (ctx) => {
      const revokedSince = recordOf(ctx);
      const { s, app, user } = await appWithUser(storage());
      const other = makeUser(app.id);
      await s.users.insert(other);
      const mine = [0, 1, 2].map(() => makeSession(app.id, user.id));
      const theirs = makeSession(app.id, other.id);
      for (const session of [...mine, theirs]) await s.sessions.insert(session);
      const kept = mine[0]!;
      await s.sessions.revokeByUser(app.id, user.id, NOW + 3, kept.id);
      const found = await revokedSince(NOW, app.id);
      expect(found.map((r) => r.session_id).sort()).toEqual([mine[1]!.id, mine[2]!.id].sort());
      expect(found.every((r) => r.app_id === app.id && r.revoked_at === NOW + 3)).toBe(true);
    });

    it('answers for one App when asked, for every App when not', async (ctx) => {
      const revokedSince = recordOf(ctx);
      const a = await appWithUser(storage());
      const b = await appWithUser(storage());
      const inA = makeSession(a.app.id, a.user.id);
      const inB = makeSession(b.app.id, b.user.id);
      await a.s.sessions.insert(inA);
      await b.s.sessions.insert(inB);
      await a.s.sessions.revoke(a.app.id, inA.id, NOW + 1);
      await b.s.sessions.revoke(b.app.id, inB.id, NOW + 1);
      expect((await revokedSince(NOW, a.app.id)).map((r) => r.session_id)).toEqual([inA.id]);
      expect((await revokedSince(NOW, b.app.id)).map((r) => r.session_id)).toEqual([inB.id]);
      const all = only([inA.id, inB.id], await revokedSince(NOW));
      expect(all.map((r) => [r.app_id, r.session_id]).sort()).toEqual(
        [
          [a.app.id, inA.id],
          [b.app.id, inB.id],
        ].sort(),
      );
      expect(await revokedSince(NOW, 'app_missing')).toEqual([]);
    });

    it('gives those revoked at or after `since`, oldest first', async (ctx) => {
      const revokedSince = recordOf(ctx);
      const { s, app, user } = await appWithUser(storage());
      const sessions = [0, 1, 2].map(() => makeSession(app.id, user.id));
      for (const session of sessions) await s.sessions.insert(session);
      // Revoked out of their order of time.
      const at = [NOW + 30, NOW + 10, NOW + 20];
      for (const [i, session] of sessions.entries()) await s.sessions.revoke(app.id, session.id, at[i]!);
      const byTime = [1, 2, 0].map((i) => ({
        app_id: app.id,
        session_id: sessions[i]!.id,
        revoked_at: at[i],
      }));
      expect(await revokedSince(NOW, app.id)).toEqual(byTime);
      expect(
        only(
          sessions.map((x) => x.id),
          await revokedSince(NOW),
        ),
      ).toEqual(byTime);
      expect(await revokedSince(NOW + 20, app.id)).toEqual(byTime.slice(1));
      expect(await revokedSince(NOW + 21, app.id)).toEqual(byTime.slice(2));
      expect(await revokedSince(NOW + 31, app.id)).toEqual([]);
    });
  });
}
