import type {
  DeviceFingerprint,
  DeviceRequirement,
  EventRecord,
  OtpConsumeFailure,
  OtpRecord,
  OtpRepo,
} from '@latchkey/core';
import { type Selectable, sql } from 'kysely';
import type { LatchkeyDb, OtpsTable } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';
import { fromJson, toJson, toNullableSeconds, toSeconds } from './columns.js';
import { deviceFromShape, deviceMatchSql, deviceShape, deviceValues } from './device-sql.js';
import { eventsParam, withEvents } from './event-repo.js';

// Named columns, not `*`: a prepared statement's result must keep its shape when a later
// migration adds a column while the process runs.
const OTP_COLUMNS = [
  'id',
  'app_id',
  'method_id',
  'user_id',
  'code_hash',
  'attempts',
  'expires_at',
  'used_at',
  'device_fingerprint',
  'created_at',
] as const satisfies ReadonlyArray<keyof OtpsTable>;

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

/** Its shape: the device requirement's (device-sql.ts), and whether events are written. */
interface ConsumeShape {
  device: string[];
  events: boolean;
}

// One statement: the CTE locks the method's code and judges its latest version (a concurrent
// consume that won first makes it 'used'); the update applies the verdict. Its events, when
// given, are alternatives: the one whose reason is the verdict is written.
export const consume = defineStatement(
  (db, params: unknown[], shape: ConsumeShape) => {
    const [maxAttempts, now, codeHash, appId, methodId, events, ...device] = params as [
      number,
      number,
      string,
      string,
      string,
      string | undefined,
      ...unknown[],
    ];
    const verdict = sql<OtpConsumeFailure | 'ok'>`case
        when used_at is not null then 'used'
        when attempts >= ${maxAttempts} then 'too_many_attempts'
        when expires_at <= ${now} then 'expired'
        when code_hash <> ${codeHash} then 'mismatch'
        when not ${deviceMatchSql(deviceFromShape(shape.device, device), 'otps')} then 'device_mismatch'
        else 'ok' end`;
    const update = db
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
      .returning(OTP_COLUMNS.map((c) => `otps.${c}` as const))
      .returning('target.verdict');
    return withEvents(
      db,
      update,
      shape.events ? events : undefined,
      sql<boolean>`written.verdict = v.data->>'reason'`,
    );
  },
  (shape) => `${shape.device.join(',')}:${shape.events}`,
);

export const replace = defineStatement((db, row: OtpRow) => {
  const [
    id,
    app_id,
    method_id,
    user_id,
    code_hash,
    attempts,
    expires_at,
    used_at,
    device_fingerprint,
    created_at,
  ] = row;
  const replaced = { id, user_id, code_hash, attempts, expires_at, used_at, device_fingerprint, created_at };
  return db
    .insertInto('otps')
    .values({ ...replaced, app_id, method_id })
    .onConflict((oc) => oc.columns(['app_id', 'method_id']).doUpdateSet(replaced));
});

/**
 * The first code of a contact that `contact` (a CTE of the same statement) has just inserted,
 * in ContactRepo.findOrCreateWithUserAndOtp: a row only when the contact was, its method and user
 * the contact's own. A new contact has no code to replace, so a plain insert.
 */
export const firstOtpFromContact = (db: LatchkeyDb, values: readonly unknown[]) => {
  const [id, appId, codeHash, attempts, expiresAt, usedAt, device, createdAt] = values;
  return db
    .insertInto('otps')
    .columns(OTP_COLUMNS)
    .expression(
      sql`select ${id}::text, ${appId}::text, contact.id, contact.user_id, ${codeHash}::text, ${attempts}::integer, ${expiresAt}::bigint, ${usedAt}::bigint, ${device}::jsonb, ${createdAt}::bigint from contact`,
    );
};

/** An OtpRecord's values as firstOtpFromContact takes them, its device as JSON. */
export const firstOtpValues = (otp: OtpRecord): unknown[] => [
  otp.id,
  otp.app_id,
  otp.code_hash,
  otp.attempts,
  otp.expires_at,
  otp.used_at,
  otp.device_fingerprint === null ? null : toJson(otp.device_fingerprint),
  otp.created_at,
];

type OtpRow = [
  id: string,
  app_id: string,
  method_id: string,
  user_id: string,
  code_hash: string,
  attempts: number,
  expires_at: number,
  used_at: number | null,
  device_fingerprint: string | null,
  created_at: number,
];

export function kyselyOtpRepo(db: LatchkeyDb, statements: Statements): OtpRepo {
  const consumeRow = async (
    appId: string,
    methodId: string,
    codeHash: string,
    now: number,
    maxAttempts: number,
    device: DeviceRequirement,
    events: EventRecord[],
  ) => {
    const shape = { device: deviceShape(device), events: events.length > 0 };
    const params = [
      maxAttempts,
      now,
      codeHash,
      appId,
      methodId,
      shape.events ? eventsParam(events) : undefined,
      ...deviceValues(device),
    ];
    return verdictOf((await statements.run(consume, params, shape))[0]);
  };

  return {
    async replace(otp) {
      // An upsert on (app_id, method_id): one statement, so two concurrent sends never collide.
      await statements.run(replace, [
        otp.id,
        otp.app_id,
        otp.method_id,
        otp.user_id,
        otp.code_hash,
        otp.attempts,
        otp.expires_at,
        otp.used_at,
        otp.device_fingerprint === null ? null : toJson(otp.device_fingerprint),
        otp.created_at,
      ]);
    },

    consume: (appId, methodId, codeHash, now, maxAttempts, device) =>
      consumeRow(appId, methodId, codeHash, now, maxAttempts, device, []),

    consumeWithEvents: (appId, methodId, codeHash, now, maxAttempts, device, events) =>
      consumeRow(appId, methodId, codeHash, now, maxAttempts, device, events),

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
