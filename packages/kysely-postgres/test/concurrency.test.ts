import { makeApp, makeContact, makeUser, uid } from '@latchkey/storage-conformance';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, type Harness, postgresTarget } from './targets.js';

describe.skipIf(!DATABASE_URL)('concurrent inserts on postgres', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await postgresTarget.open(); // a pool of 10
  });
  afterAll(async () => {
    await h?.dispose();
  });

  for (const [repo, table] of [
    ['emails', 'emails'],
    ['phoneNumbers', 'phone_numbers'],
  ] as const) {
    it(`lets exactly one of 20 parallel ${repo} inserts of one address win`, async () => {
      const app = makeApp();
      await h.storage.apps.insert(app);
      const user = makeUser(app.id);
      await h.storage.users.insert(user);
      const address = `${uid('race')}@example.com`;

      // A second session holds an uncommitted row with the address, so every insert the Storage
      // sends must wait on it; seeing ten of them waiting at once proves they run in parallel.
      const s = `"${h.schema}"`;
      // Its own connection: in the polling connection pg_stat_activity would be frozen by the open transaction.
      const blocker = new pg.Client({ connectionString: DATABASE_URL });
      await blocker.connect();
      await blocker.query('begin');
      await blocker.query(`insert into ${s}.${table} values ($1, $2, $3, $4, null, 1)`, [
        uid('blocker'),
        app.id,
        user.id,
        address,
      ]);
      const racing = Promise.all(
        Array.from({ length: 20 }, () => h.storage[repo].insert(makeContact(app.id, user.id, { address }))),
      );
      let waiting = 0;
      for (let i = 0; i < 200 && waiting < 10; i++) {
        const [row] = await h.sql<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where wait_event_type = 'Lock' and query like $1`,
          [`%insert into "${h.schema}"."${table}"%`],
        );
        waiting = row!.n;
        if (waiting < 10) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await blocker.query('rollback');
      await blocker.end();
      const results = await racing;

      expect(waiting).toBe(10);
      expect(results.filter((r) => r.inserted)).toHaveLength(1);
      const rows = await h.sql(`select id from ${s}.${table} where app_id = $1 and address = $2`, [
        app.id,
        address,
      ]);
      expect(rows).toHaveLength(1);
    });
  }
});
