import type { TotpRecord, TotpRepo } from '@latchkey/core';
import { type Selectable, sql } from 'kysely';
import type { LatchkeyDb, TotpsTable } from '../database.js';
import { toNullableSeconds, toSeconds } from './columns.js';
import { inTransaction, lockUser } from './in-transaction.js';

const toRecord = (row: Selectable<TotpsTable>): TotpRecord => ({
  id: row.id,
  app_id: row.app_id,
  user_id: row.user_id,
  sealed_secret: row.sealed_secret,
  status: row.status as TotpRecord['status'],
  expires_at: toSeconds(row.expires_at),
  last_used_step: toNullableSeconds(row.last_used_step),
  failed_attempts: Number(row.failed_attempts),
  locked_until: toNullableSeconds(row.locked_until),
  verified_at: toNullableSeconds(row.verified_at),
  created_at: toSeconds(row.created_at),
});

export function kyselyTotpRepo(db: LatchkeyDb): TotpRepo {
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
      return row ? toRecord(row) : null;
    },

    async getForUser(appId, userId) {
      const row = await db
        .selectFrom('totps')
        .selectAll()
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .orderBy(sql`status = 'active'`, 'desc')
        .orderBy('created_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? toRecord(row) : null;
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
          .set({ status: 'active', verified_at: now, last_used_step: step, failed_attempts: 0 })
          .where('app_id', '=', appId)
          .where('id', '=', totpId)
          .where('status', '=', 'pending')
          .where('expires_at', '>', now)
          .returningAll()
          .executeTakeFirst();
        return row ? toRecord(row) : null;
      });
    },

    async useStep(appId, totpId, step) {
      // The row lock and the re-checked WHERE let one of concurrent callers through per step.
      const row = await db
        .updateTable('totps')
        .set({ last_used_step: step, failed_attempts: 0 })
        .where('app_id', '=', appId)
        .where('id', '=', totpId)
        .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },

    async recordFailure(appId, totpId, now, maxFailures, lockSeconds) {
      // Both SET expressions read the row as it was: one statement counts and locks.
      const reachesLimit = sql<boolean>`${sql.ref('failed_attempts')} + 1 >= ${maxFailures}`;
      const row = await db
        .updateTable('totps')
        .set({
          failed_attempts: sql<number>`case when ${reachesLimit} then 0 else ${sql.ref('failed_attempts')} + 1 end`,
          locked_until: sql<number | null>`case when ${reachesLimit}
            then ${now + lockSeconds} else ${sql.ref('locked_until')} end`,
        })
        .where('app_id', '=', appId)
        .where('id', '=', totpId)
        .returningAll()
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async consumeRecoveryCode(appId, totpId, codeHash, now) {
      // As OtpRepo.consume: lock the code, judge its latest version, mark it used when unused.
      const row = await db
        .with('target', (qb) =>
          qb
            .selectFrom('recovery_codes')
            .select([
              'id',
              sql<'used' | 'ok'>`case when used_at is not null then 'used' else 'ok' end`.as('verdict'),
            ])
            .where('app_id', '=', appId)
            .where('totp_id', '=', totpId)
            .where('code_hash', '=', codeHash)
            .limit(1)
            .forUpdate(),
        )
        .updateTable('recovery_codes')
        .from('target')
        .set({
          used_at: sql<number | null>`case when ${sql.ref('target.verdict')} = 'ok'
            then ${now} else ${sql.ref('recovery_codes.used_at')} end`,
        })
        .whereRef('recovery_codes.id', '=', 'target.id')
        .returning('target.verdict')
        .executeTakeFirst();
      if (!row) return { ok: false, reason: 'not_found' };
      return row.verdict === 'ok' ? { ok: true } : { ok: false, reason: 'used' };
    },

    async delete(appId, totpId) {
      // Its recovery codes go by ON DELETE CASCADE.
      const row = await db
        .deleteFrom('totps')
        .where('app_id', '=', appId)
        .where('id', '=', totpId)
        .returningAll()
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },
  };
}
