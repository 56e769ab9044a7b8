import { createLatchkey, type Latchkey } from '@latchkey/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, type Harness, postgresTarget } from './targets.js';

/**
 * The one-statement find-or-create's rare path: a creator commits the address after the
 * statements' snapshots were taken, so they neither see its contact nor insert their own. Each
 * call must then read the winner (not fail, not create), and leave no user behind.
 */
describe.skipIf(!DATABASE_URL)('find-or-create against an uncommitted creator on postgres', () => {
  let h: Harness;
  let latchkey: Latchkey;
  let appId: string;
  beforeAll(async () => {
    h = await postgresTarget.open(); // a pool of 10
    latchkey = createLatchkey({
      storage: h.storage,
      secret: 'find-or-create-race-secret-0123456789abc',
      sender: { send: async () => {} },
    });
    const app = await latchkey.apps.create({
      name: 'Race',
      settings: { rate_limits: { per_destination: { limit: 1000 }, per_app: { limit: 100_000 } } },
    });
    appId = app.app_id;
  });
  afterAll(async () => {
    await h?.dispose();
  });

  /** How many statements wait on a lock on the emails table, once `n` do (or after 5 s). */
  async function lockWaiters(n: number) {
    let waiting = 0;
    for (let i = 0; i < 250 && waiting < n; i++) {
      const [row] = await h.sql<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like $1`,
        [`%insert into "${h.schema}"."emails"%`],
      );
      waiting = row!.n;
      if (waiting < n) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return waiting;
  }
  const usersOfApp = async () =>
    (
      await h.sql<{ n: number }>(`select count(*)::int as n from "${h.schema}".users where app_id = $1`, [
        appId,
      ])
    )[0]!.n;

  it('answers the winner to every send that waited on it, creating no user', async () => {
    const s = `"${h.schema}"`;
    const address = 'blocked.winner@example.com';
    const winner = { user: 'user_blockerwinner0000000000', email: 'email_blockerwinner000000000' };
    const blocker = new pg.Client({ connectionString: DATABASE_URL });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query(`insert into ${s}.users values ($1, $2, null, 'active', 1, 1)`, [winner.user, appId]);
    await blocker.query(`insert into ${s}.emails values ($1, $2, $3, $4, null, 1)`, [
      winner.email,
      appId,
      winner.user,
      address,
    ]);
    const sends = Promise.all(
      Array.from({ length: 8 }, () => latchkey.otps.loginOrCreate(appId, 'email', { address })),
    );
    // Every send's statement waits on the blocker's row before it commits.
    const waiting = await lockWaiters(8);
    await blocker.query('commit');
    await blocker.end();
    const results = await sends;

    expect(waiting).toBe(8);
    expect(results.map((r) => [r.user_id, r.email_id, r.user_created])).toEqual(
      Array(8).fill([winner.user, winner.email, false]),
    );
    expect(await usersOfApp()).toBe(1);
    const created = await latchkey.events.list(appId, { type: 'user.created', limit: 10 });
    expect(created.events).toEqual([]);
  });

  it('creates once when the blocking creator rolls back', async () => {
    const s = `"${h.schema}"`;
    const address = 'blocked.loser@example.com';
    const blocker = new pg.Client({ connectionString: DATABASE_URL });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query(
      `insert into ${s}.users values ('user_blockerloser00000000000', $1, null, 'active', 1, 1)`,
      [appId],
    );
    await blocker.query(
      `insert into ${s}.emails values ('email_blockerloser0000000000', $1, 'user_blockerloser00000000000', $2, null, 1)`,
      [appId, address],
    );
    const before = await usersOfApp();
    const sends = Promise.all(
      Array.from({ length: 4 }, () => latchkey.otps.loginOrCreate(appId, 'email', { address })),
    );
    expect(await lockWaiters(4)).toBe(4);
    await blocker.query('rollback');
    await blocker.end();
    const results = await sends;

    expect(results.filter((r) => r.user_created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.user_id)).size).toBe(1);
    // The one winner's user; the three that lost to it inserted none.
    expect(await usersOfApp()).toBe(before + 1);
  });
});
