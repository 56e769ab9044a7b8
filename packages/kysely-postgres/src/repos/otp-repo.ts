import type {
  DeviceFingerprint,
  DeviceRequirement,
  OtpConsumeFailure,
  OtpRecord,
  OtpRepo,
} from '@latchkey/core';
import { type Selectable, sql } from 'kysely';
import type { LatchkeyDb, OtpsTable } from '../database.js';
import { fromJson, toJson, toNullableSeconds, toSeconds } from './columns.js';
import { deviceMatchSql } from './device-sql.js';
import { writeWithEvents } from './event-repo.js';

const toRecord = (row: Selectable<OtpsTable>): OtpRecord => ({
  id: row.id,
  app_id: row.app_id,
  method_id: row.method_id,
  user_id: row.user_id,
  code_hash: row.code_hash,
  attempts: Number(row.attempts),
  expires_at: toSeconds(row.expires_at),
  used_at: toNullableSeconds(row.used_at),
  device_fingerprint: (fromJson(row.device_fingerprint) as DeviceFingerprint | null) ?? null,
  created_at: toSeconds(row.created_at),
});

type ConsumedRow = Selectable<OtpsTable> & { verdict: OtpConsumeFailure | 'ok' };

const verdictOf = (
  row: ConsumedRow | undefined,
): { ok: true; otp: OtpRecord } | { ok: false; reason: OtpConsumeFailure } => {
  if (!row) return { ok: false, reason: 'not_found' };
  if (row.verdict === 'ok') return { ok: true, otp: toRecord(row) };
  return { ok: false, reason: row.verdict };
};

export function kyselyOtpRepo(db: LatchkeyDb): OtpRepo {
  // One statement: the CTE locks the method's code and judges its latest version (a concurrent
  // consume that won first makes it 'used'); the update applies the verdict.
  const consumeQuery = (
    appId: string,
    methodId: string,
    codeHash: string,
    now: number,
    maxAttempts: number,
    device: DeviceRequirement,
  ) => {
    const verdict = sql<OtpConsumeFailure | 'ok'>`case
        when used_at is not null then 'used'
        when attempts >= ${maxAttempts} then 'too_many_attempts'
        when expires_at <= ${now} then 'expired'
        when code_hash <> ${codeHash} then 'mismatch'
        when not ${deviceMatchSql(device, 'otps')} then 'device_mismatch'
        else 'ok' end`;
    return db
      .with('target', (qb) =>
        qb
          .selectFrom('otps')
          .select(['id', verdict.as('verdict')])
          .where('app_id', '=', appId)
          .where('method_id', '=', methodId)
          .forUpdate(),
      )
      .updateTable('otps')
      .from('target')
      .set({
        used_at: sql<number | null>`case when ${sql.ref('target.verdict')} = 'ok'
            then ${now} else ${sql.ref('otps.used_at')} end`,
        attempts: sql<number>`case when ${sql.ref('target.verdict')} in ('mismatch', 'device_mismatch')
            then ${sql.ref('otps.attempts')} + 1 else ${sql.ref('otps.attempts')} end`,
      })
      .whereRef('otps.id', '=', 'target.id')
      .returningAll('otps')
      .returning('target.verdict');
  };

  return {
    async replace(otp) {
      // An upsert on (app_id, method_id): one statement, so two concurrent sends never collide.
      const row = {
        id: otp.id,
        app_id: otp.app_id,
        method_id: otp.method_id,
        user_id: otp.user_id,
        code_hash: otp.code_hash,
        attempts: otp.attempts,
        expires_at: otp.expires_at,
        used_at: otp.used_at,
        device_fingerprint: otp.device_fingerprint === null ? null : toJson(otp.device_fingerprint),
        created_at: otp.created_at,
      };
      const { app_id: _app, method_id: _method, ...replaced } = row;
      await db
        .insertInto('otps')
        .values(row)
        .onConflict((oc) => oc.columns(['app_id', 'method_id']).doUpdateSet(replaced))
        .execute();
    },

    async consume(appId, methodId, codeHash, now, maxAttempts, device) {
      return verdictOf(
        await consumeQuery(appId, methodId, codeHash, now, maxAttempts, device).executeTakeFirst(),
      );
    },

    async consumeWithEvents(appId, methodId, codeHash, now, maxAttempts, device, events) {
      const query = consumeQuery(appId, methodId, codeHash, now, maxAttempts, device);
      const [row] = await writeWithEvents(
        db,
        query,
        events,
        sql<boolean>`written.verdict = v.data->>'reason'`,
      );
      return verdictOf(row);
    },

    async get(appId, methodId) {
      const row = await db
        .selectFrom('otps')
        .selectAll()
        .where('app_id', '=', appId)
        .where('method_id', '=', methodId)
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async deleteByMethod(appId, methodId) {
      await db.deleteFrom('otps').where('app_id', '=', appId).where('method_id', '=', methodId).execute();
    },
  };
}
