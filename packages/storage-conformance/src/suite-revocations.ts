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

    it('revokeByOrganization: the organization’s sessions of the App (one user’s when given), recorded; keeps organization_id', async (ctx) => {
      const { s, app, user } = await appWithUser(storage());
      const other = makeUser(app.id);
      await s.users.insert(other);
      const elsewhere = await appWithUser(storage());
      const org = `org_${Math.random().toString(36).slice(2)}`;
      const mine = makeSession(app.id, user.id, { organization_id: org });
      const theirs = makeSession(app.id, other.id, { organization_id: org });
      const unscoped = makeSession(app.id, user.id);
      const otherOrg = makeSession(app.id, user.id, { organization_id: `${org}x` });
      // Another App's session naming the same id is never this App's to end.
      const otherApp = makeSession(elsewhere.app.id, elsewhere.user.id, { organization_id: org });
      for (const session of [mine, theirs, unscoped, otherOrg]) await s.sessions.insert(session);
      await elsewhere.s.sessions.insert(otherApp);
      expect((await s.sessions.get(app.id, mine.id))?.organization_id).toBe(org);
      expect((await s.sessions.get(app.id, unscoped.id))?.organization_id ?? null).toBeNull();

      const one = await s.sessions.revokeByOrganization(app.id, org, NOW + 1, user.id);
      expect(one.map((r) => r.id)).toEqual([mine.id]);
      expect(one[0]).toMatchObject({ revoked_at: NOW + 1, organization_id: org });
      const rest = await s.sessions.revokeByOrganization(app.id, org, NOW + 2);
      expect(rest.map((r) => r.id)).toEqual([theirs.id]);
      expect(await s.sessions.revokeByOrganization(app.id, org, NOW + 3)).toEqual([]);
      for (const live of [unscoped, otherOrg])
        expect((await s.sessions.get(app.id, live.id))?.revoked_at).toBeNull();
      expect((await s.sessions.get(elsewhere.app.id, otherApp.id))?.revoked_at).toBeNull();

      const revokedSince = recordOf(ctx);
      const found = only(
        [mine.id, theirs.id, unscoped.id, otherOrg.id, otherApp.id],
        await revokedSince(NOW),
      );
      expect(found.map((r) => [r.session_id, r.revoked_at]).sort()).toEqual(
        [
          [mine.id, NOW + 1],
          [theirs.id, NOW + 2],
        ].sort(),
      );
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
