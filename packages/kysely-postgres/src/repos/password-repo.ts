import type { PasswordRecord, PasswordRepo } from '@latchkey/core';
import { type Selectable, sql } from 'kysely';
import type { LatchkeyDb, PasswordsTable } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';
import { toNullableSeconds, toSeconds } from './columns.js';
import { writeWithEvents } from './event-repo.js';

const toRecord = (row: Selectable<PasswordsTable>): PasswordRecord => ({
  app_id: row.app_id,
  user_id: row.user_id,
  hash: row.hash,
  failed_attempts: Number(row.failed_attempts),
  locked_until: toNullableSeconds(row.locked_until),
  created_at: toSeconds(row.created_at),
  updated_at: toSeconds(row.updated_at),
});

// The password sign-in's statements, compiled once (prepared-statements.ts).

/**
 * One UPDATE, as the TOTP lock-out: its WHERE refuses a locked row, and the row lock it takes
 * makes concurrent callers re-read the count another just wrote, so no more than maxFailures pass
 * per window. A lock that has passed starts the count again. `lockedUntil`: now + the lock's
 * seconds, computed before.
 */
export const beginCheck = defineStatement(
  (db, [maxFailures, lockedUntil, appId, userId, now]: [number, number, string, string, number]) => {
    const counted = sql<number>`(case when ${sql.ref('locked_until')} is null
        then ${sql.ref('failed_attempts')} else 0 end) + 1`;
    return db
      .updateTable('passwords')
      .set({
        failed_attempts: counted,
        locked_until: sql<number | null>`case when ${counted} >= ${maxFailures}
            then ${lockedUntil}::bigint else null end`,
      })
      .where('app_id', '=', appId)
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .returningAll();
  },
);

/**
 * The count cleared after a match. `rehash` (the shape): the hash is swapped, only while it is
 * still the one checked, so a change made meanwhile stays. Params: appId, userId, then with a
 * rehash its from, to and now.
 */
export const succeeded = defineStatement(
  (db, params: unknown[], rehash: boolean) => {
    const [appId, userId, from, to, now] = params as [string, string, string, string, number];
    const hash = rehash
      ? sql<string>`case when ${sql.ref('hash')} = ${from} then ${to} else ${sql.ref('hash')} end`
      : sql<string>`${sql.ref('hash')}`;
    return db
      .updateTable('passwords')
      .set({ hash, failed_attempts: 0, locked_until: null, ...(rehash ? { updated_at: now } : {}) })
      .where('app_id', '=', appId)
      .where('user_id', '=', userId);
  },
  (rehash) => String(rehash),
);

export function kyselyPasswordRepo(db: LatchkeyDb, statements: Statements): PasswordRepo {
  // A user's first password: the primary key decides a race, and a second is not an error.
  const insertPassword = (p: PasswordRecord) =>
    db
      .insertInto('passwords')
      .values({
        app_id: p.app_id,
        user_id: p.user_id,
        hash: p.hash,
        failed_attempts: p.failed_attempts,
        locked_until: p.locked_until,
        created_at: p.created_at,
        updated_at: p.updated_at,
      })
      .onConflict((oc) => oc.columns(['app_id', 'user_id']).doNothing())
      .returning('user_id');
  return {
    async get(appId, userId) {
      const row = await db
        .selectFrom('passwords')
        .selectAll()
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async insert(p) {
      return { inserted: (await insertPassword(p).executeTakeFirst()) !== undefined };
    },

    async insertWithEvents(p, _source, events) {
      return { inserted: (await writeWithEvents(db, insertPassword(p), events)).length > 0 };
    },

    async replace(appId, userId, hash, now) {
      const row = await db
        .updateTable('passwords')
        .set({ hash, failed_attempts: 0, locked_until: null, updated_at: now })
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .returningAll()
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async beginCheck(appId, userId, now, maxFailures, lockSeconds) {
      const [row] = await statements.run(beginCheck, [maxFailures, now + lockSeconds, appId, userId, now]);
      if (row) return { granted: true, password: toRecord(row) };
      const locked = await db
        .selectFrom('passwords')
        .select('locked_until')
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (!locked) return null;
      // Unlocked between the two statements (by a success): refuse this once all the same.
      return { granted: false, locked_until: toNullableSeconds(locked.locked_until) ?? now };
    },

    async succeeded(appId, userId, now, rehash) {
      const params = rehash ? [appId, userId, rehash.from, rehash.to, now] : [appId, userId];
      await statements.run(succeeded, params, rehash !== undefined);
    },
  };
}
