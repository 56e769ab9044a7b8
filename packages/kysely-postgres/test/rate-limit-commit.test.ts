import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, type Harness, pgliteTarget, postgresTargetWith } from './targets.js';

/**
 * Rate counters commit early (docs/decisions.md): a counting statement that is its own
 * transaction commits without waiting for the WAL flush, so a window every send shares is not
 * locked through an fsync per send. A trigger records the `synchronous_commit` each counted row
 * was written under. Inside a transaction the commit stays durable (the setting would reach every
 * write of it), and the setting never outlives the statement on its connection.
 */
async function recordCommitModes(sql: Harness['sql'], schema: string) {
  const s = `"${schema}"`;
  await sql(`create table ${s}.commit_modes (n serial primary key, mode text not null)`);
  await sql(`create function ${s}.record_commit_mode() returns trigger language plpgsql as $$
    begin insert into ${s}.commit_modes (mode) values (current_setting('synchronous_commit')); return null; end $$`);
  await sql(`create trigger record_commit_mode after insert or update on ${s}.rate_limits
    for each row execute function ${s}.record_commit_mode()`);
  return async () => {
    const rows = await sql<{ mode: string }>(`select mode from ${s}.commit_modes order by n`);
    await sql(`delete from ${s}.commit_modes`);
    return rows.map((r) => r.mode);
  };
}

const opens: Array<[string, () => Promise<Harness>]> = [['pglite', () => pgliteTarget.open()]];
// Postgres with a pool of one connection: every statement shares the session a leak would reach.
if (DATABASE_URL)
  opens.push(['postgres, one connection', () => postgresTargetWith({ pool: { max: 1 } }).open()]);

describe.each(opens)('rate counters commit early (%s)', (_, open) => {
  let h: Harness;
  let modes: () => Promise<string[]>;
  const window = Math.floor(Date.now() / 1000);
  beforeAll(async () => {
    h = await open();
    modes = await recordCommitModes(h.sql, h.schema);
  });
  afterAll(async () => {
    await h?.dispose();
  });

  it('counts a window, or several, on their own without waiting for the WAL flush', async () => {
    await h.storage.rateLimits.hit('one', window, 5);
    await h.storage.rateLimits.hitAll!([
      { key: 'a', windowStart: window, limit: 5 },
      { key: 'b', windowStart: window, limit: 5 },
    ]);
    // Twice on one key: counted one at a time, still early.
    await h.storage.rateLimits.hitAll!([
      { key: 'c', windowStart: window, limit: 5 },
      { key: 'c', windowStart: window, limit: 5 },
    ]);
    expect(await modes()).toEqual(['off', 'off', 'off', 'off', 'off']);
  });

  it('keeps a transaction durable, and the early setting ends with its statement', async () => {
    // Counted early first, on the connection (PGlite's one session, the pool's one connection)
    // the transaction then runs on: a setting that outlived the statement would show there.
    await h.storage.rateLimits.hit('before', window, 5);
    await h.storage.transaction(async (trx) => {
      await trx.rateLimits.hit('inside', window, 5);
      await trx.rateLimits.hitAll!([
        { key: 'inside-a', windowStart: window, limit: 5 },
        { key: 'inside-b', windowStart: window, limit: 5 },
      ]);
    });
    expect(await modes()).toEqual(['off', 'on', 'on', 'on']);
    const [setting] = await h.sql<{ synchronous_commit: string }>('show synchronous_commit');
    expect(setting!.synchronous_commit).toBe('on');
  });

  it('counts as exactly as before: the limit stops the count, a refusal writes nothing', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await h.storage.rateLimits.hit('exact', window, 3));
    expect(answers.map((a) => a.counted)).toEqual([true, true, true, false]);
    expect(answers.map((a) => a.count)).toEqual([1, 2, 3, 3]);
    expect(await h.storage.rateLimits.hit('none allowed', window, 0)).toEqual({ counted: false, count: 0 });
    expect(await modes()).toEqual(['off', 'off', 'off']);
  });
});
