import type { TotpRecord, TotpRepo } from '@latchkey/core';
import { type Selectable, sql } from 'kysely';
import type { LatchkeyDb, TotpsTable } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';
import { toNullableSeconds, toSeconds } from './columns.js';
import { inTransaction, lockUser } from './in-transaction.js';

export const toTotpRecord = (row: Selectable<TotpsTable>): TotpRecord => ({
  id: row.id,
  app_id: row.app_id,
  user_id: row.user_id,
  sealed_secret: row.sealed_secret,
  status: row.status as TotpRecord['status'],
  expires_at: toSeconds(row.expires_at),
  last_used_step: toNullableSeconds(row.last_used_step),
  failed_attempts: Number(row.failed_attempts),
  locked_until: toNullableSeconds(row.locked_until),
  recovery_failed_attempts: Number(row.recovery_failed_attempts),
  recovery_locked_until: toNullableSeconds(row.recovery_locked_until),
  verified_at: toNullableSeconds(row.verified_at),
  created_at: toSeconds(row.created_at),
});

// The TOTP sign-in's statements, compiled once (prepared-statements.ts).

/** The user's TOTP: the active one first, else the newest pending. */
export const forUser = defineStatement((db, [appId, userId]: [string, string]) =>
  db
    .selectFrom('totps')
    .selectAll()
    .where('app_id', '=', appId)
    .where('user_id', '=', userId)
    .orderBy(sql`status = 'active'`, 'desc')
    .orderBy('created_at', 'desc')
    .limit(1),
);

/**
 * One UPDATE: its WHERE refuses a locked row, and the row lock it takes makes concurrent callers
 * re-read the count another just wrote, so no more than maxFailures pass per window. A lock that
 * has passed starts the count again. `lockedUntil`: now + the lock's seconds, computed before.
 */
export const codeCheck = defineStatement(
  (db, [maxFailures, lockedUntil, appId, totpId, now]: [number, number, string, string, number]) => {
    const counted = sql<number>`(case when ${sql.ref('locked_until')} is null
        then ${sql.ref('failed_attempts')} else 0 end) + 1`;
    return db
      .updateTable('totps')
      .set({
        failed_attempts: counted,
        locked_until: sql<number | null>`case when ${counted} >= ${maxFailures}
            then ${lockedUntil}::bigint else null end`,
      })
      .where('app_id', '=', appId)
      .where('id', '=', totpId)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .returningAll();
  },
);

/** The row lock and the re-checked WHERE let one of concurrent callers through per step. */
export const useStep = defineStatement((db, [step, appId, totpId]: [number, string, string]) =>
  db
    .updateTable('totps')
    .set({ last_used_step: step, failed_attempts: 0, locked_until: null })
    .where('app_id', '=', appId)
    .where('id', '=', totpId)
    .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
    .returning('id'),
);

export function kyselyTotpRepo(db: LatchkeyDb, statements: Statements): TotpRepo {
  const hasActive = async (trx: LatchkeyDb, appId: string, userId: string) =>
    (await trx
      .selectFrom('totps')
      .select('id')
      .where('app_id', '=', appId)
      .where('user_id', '=', userId)
      .where('status', '=', 'active')
      .executeTakeFirst()) !== undefined;

  return {
    async createPending(totp, recoveryCodes) {
      // Several statements, so one transaction holding the user's row: two concurrent calls
      // for one user cannot both replace the pending TOTP, nor race an activation.
      return inTransaction(db, async (trx) => {
        await lockUser(trx, totp.app_id, totp.user_id);
        if (await hasActive(trx, totp.app_id, totp.user_id)) return { created: false };
        await trx
          .deleteFrom('totps')
          .where('app_id', '=', totp.app_id)
          .where('user_id', '=', totp.user_id)
          .where('status', '=', 'pending')
          .execute();
        await trx
          .insertInto('totps')
          .values({
            id: totp.id,
            app_id: totp.app_id,
            user_id: totp.user_id,
            sealed_secret: totp.sealed_secret,
            status: totp.status,
            expires_at: totp.expires_at,
            last_used_step: totp.last_used_step,
            failed_attempts: totp.failed_attempts,
            locked_until: totp.locked_until,
            recovery_failed_attempts: totp.recovery_failed_attempts,
            recovery_locked_until: totp.recovery_locked_until,
            verified_at: totp.verified_at,
            created_at: totp.created_at,
          })
          .execute();
        if (recoveryCodes.length > 0) {
          await trx
            .insertInto('recovery_codes')
            .values(
              recoveryCodes.map((c) => ({
                id: c.id,
                app_id: c.app_id,
                user_id: c.user_id,
                totp_id: c.totp_id,
                code_hash: c.code_hash,
                used_at: c.used_at,
                created_at: c.created_at,
              })),
            )
            .execute();
        }
        return { created: true };
      });
    },

    async get(appId, totpId) {
      const row = await db
        .selectFrom('totps')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', totpId)
        .executeTakeFirst();
      return row ? toTotpRecord(row) : null;
    },

    async getForUser(appId, userId) {
      const [row] = await statements.run(forUser, [appId, userId]);
      return row ? toTotpRecord(row) : null;
    },

    async activate(appId, totpId, now, step) {
      return inTransaction(db, async (trx) => {
        const pending = await trx
          .selectFrom('totps')
          .select('user_id')
          .where('app_id', '=', appId)
          .where('id', '=', totpId)
          .executeTakeFirst();
        if (!pending) return null;
        await lockUser(trx, appId, pending.user_id);
        if (await hasActive(trx, appId, pending.user_id)) return null;
        const row = await trx
          .updateTable('totps')
          .set({
            status: 'active',
            verified_at: now,
            last_used_step: step,
            failed_attempts: 0,
            locked_until: null,
          })
          .where('app_id', '=', appId)
          .where('id', '=', totpId)
          .where('status', '=', 'pending')
          .where('expires_at', '>', now)
          .returningAll()
          .executeTakeFirst();
        return row ? toTotpRecord(row) : null;
      });
    },

    async useStep(appId, totpId, step) {
      return (await statements.run(useStep, [step, appId, totpId])).length > 0;
    },

    async beginCodeCheck(appId, totpId, now, maxFailures, lockSeconds) {
      const [row] = await statements.run(codeCheck, [maxFailures, now + lockSeconds, appId, totpId, now]);
      if (row) return { granted: true, totp: toTotpRecord(row) };
      const locked = await db
        .selectFrom('totps')
        .select('locked_until')
        .where('app_id', '=', appId)
        .where('id', '=', totpId)
        .executeTakeFirst();
      if (!locked) return null;
      // Unlocked between the two statements (by a success): refuse this once all the same.
      return { granted: false, locked_until: toNullableSeconds(locked.locked_until) ?? now };
    },

    async consumeRecoveryCode(appId, totpId, codeHash, now, maxFailures, lockSeconds) {
      // A few statements under the TOTP row's lock: concurrent calls for one TOTP run one at a
      // time, so the count and the lock hold under any burst.
      return inTransaction(db, async (trx) => {
        const totp = await trx
          .selectFrom('totps')
          .select(['recovery_failed_attempts', 'recovery_locked_until'])
          .where('app_id', '=', appId)
          .where('id', '=', totpId)
          .forUpdate()
          .executeTakeFirst();
        if (!totp) return { ok: false, reason: 'not_found', locked_until: null } as const;
        const lockedUntil = toNullableSeconds(totp.recovery_locked_until);
        if (lockedUntil !== null && lockedUntil > now)
          return { ok: false, reason: 'locked', locked_until: lockedUntil } as const;
        const code = await trx
          .selectFrom('recovery_codes')
          .select(['id', 'used_at'])
          .where('app_id', '=', appId)
          .where('totp_id', '=', totpId)
          .where('code_hash', '=', codeHash)
          .limit(1)
          .executeTakeFirst();
        if (code && code.used_at !== null) return { ok: false, reason: 'used' } as const;
        if (code) {
          await trx.updateTable('recovery_codes').set({ used_at: now }).where('id', '=', code.id).execute();
          await trx
            .updateTable('totps')
            .set({
              failed_attempts: 0,
              locked_until: null,
              recovery_failed_attempts: 0,
              recovery_locked_until: null,
            })
            .where('app_id', '=', appId)
            .where('id', '=', totpId)
            .execute();
          return { ok: true } as const;
        }
        const counted = (lockedUntil === null ? Number(totp.recovery_failed_attempts) : 0) + 1;
        const lockUntil = counted >= maxFailures ? now + lockSeconds : null;
        await trx
          .updateTable('totps')
          .set({ recovery_failed_attempts: counted, recovery_locked_until: lockUntil })
          .where('app_id', '=', appId)
          .where('id', '=', totpId)
          .execute();
        return { ok: false, reason: 'not_found', locked_until: lockUntil } as const;
      });
    },

    async delete(appId, totpId) {
      // Its recovery codes go by ON DELETE CASCADE.
      const row = await db
        .deleteFrom('totps')
        .where('app_id', '=', appId)
        .where('id', '=', totpId)
        .returningAll()
        .executeTakeFirst();
      return row ? toTotpRecord(row) : null;
    },
  };
}
