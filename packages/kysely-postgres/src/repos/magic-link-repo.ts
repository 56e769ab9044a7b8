import type {
  DeviceFingerprint,
  MagicLinkConsumeFailure,
  MagicLinkKind,
  MagicLinkRecord,
  MagicLinkRepo,
} from '@latchkey/core';
import { type Insertable, type Selectable, sql } from 'kysely';
import type { LatchkeyDb, MagicLinksTable } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';
import { fromJson, toJson, toNullableSeconds, toSeconds } from './columns.js';
import { deviceFromShape, deviceMatchSql, deviceShape, deviceValues } from './device-sql.js';

const toRecord = (row: Selectable<MagicLinksTable>): MagicLinkRecord => ({
  id: row.id,
  app_id: row.app_id,
  user_id: row.user_id,
  email_id: row.email_id,
  token_hash: row.token_hash,
  kind: row.kind as MagicLinkKind,
  expires_at: toSeconds(row.expires_at),
  used_at: toNullableSeconds(row.used_at),
  attempts: Number(row.attempts),
  device_fingerprint: (fromJson(row.device_fingerprint) as DeviceFingerprint | null) ?? null,
  created_at: toSeconds(row.created_at),
});

const LINK_COLUMNS = [
  'id',
  'app_id',
  'user_id',
  'email_id',
  'token_hash',
  'kind',
  'expires_at',
  'used_at',
  'attempts',
  'device_fingerprint',
  'created_at',
] as const satisfies ReadonlyArray<keyof MagicLinksTable>;

/** A link's values in LINK_COLUMNS' order, its device as JSON (one parameter each, as templates need). */
type LinkRow = unknown[];

export const insert = defineStatement((db, row: LinkRow) =>
  db
    .insertInto('magic_links')
    .values(Object.fromEntries(LINK_COLUMNS.map((c, i) => [c, row[i]])) as Insertable<MagicLinksTable>),
);

/**
 * The first link of a contact that `contact` (a CTE of the same statement) has just inserted, in
 * ContactRepo.findOrCreateWithUserAndLink: a row only when the contact was, its email and user
 * the contact's own.
 */
export const firstLinkFromContact = (db: LatchkeyDb, values: readonly unknown[]) => {
  const [id, appId, tokenHash, kind, expiresAt, usedAt, attempts, device, createdAt] = values;
  return db
    .insertInto('magic_links')
    .columns(LINK_COLUMNS)
    .expression(
      sql`select ${id}::text, ${appId}::text, contact.user_id, contact.id, ${tokenHash}::text, ${kind}::text, ${expiresAt}::bigint, ${usedAt}::bigint, ${attempts}::integer, ${device}::jsonb, ${createdAt}::bigint from contact`,
    );
};

/** A MagicLinkRecord's values as firstLinkFromContact takes them, its device as JSON. */
export const firstLinkValues = (link: MagicLinkRecord): unknown[] => [
  link.id,
  link.app_id,
  link.token_hash,
  link.kind,
  link.expires_at,
  link.used_at,
  link.attempts,
  link.device_fingerprint === null ? null : toJson(link.device_fingerprint),
  link.created_at,
];

// As OtpRepo.consume: the CTE locks the link and judges its latest version, so of concurrent
// consumes only the first sees it unused. `shape`: the device requirement's (device-sql.ts).
export const consume = defineStatement(
  (db, params: unknown[], shape: string[]) => {
    const [maxAttempts, now, appId, tokenHash, ...device] = params as [
      number,
      number,
      string,
      string,
      ...unknown[],
    ];
    const verdict = sql<MagicLinkConsumeFailure | 'ok'>`case
        when used_at is not null then 'used'
        when attempts >= ${maxAttempts} then 'too_many_attempts'
        when expires_at <= ${now} then 'expired'
        when not ${deviceMatchSql(deviceFromShape(shape, device), 'magic_links')} then 'device_mismatch'
        else 'ok' end`;
    return db
      .with('target', (qb) =>
        qb
          .selectFrom('magic_links')
          .select(['id', verdict.as('verdict')])
          .where('app_id', '=', appId)
          .where('token_hash', '=', tokenHash)
          .limit(1)
          .forUpdate(),
      )
      .updateTable('magic_links')
      .from('target')
      .set({
        used_at: sql<number | null>`case when ${sql.ref('target.verdict')} = 'ok'
            then ${now} else ${sql.ref('magic_links.used_at')} end`,
        attempts: sql<number>`case when ${sql.ref('target.verdict')} = 'device_mismatch'
            then ${sql.ref('magic_links.attempts')} + 1 else ${sql.ref('magic_links.attempts')} end`,
      })
      .whereRef('magic_links.id', '=', 'target.id')
      .returning(LINK_COLUMNS.map((c) => `magic_links.${c}` as const))
      .returning('target.verdict');
  },
  (shape) => shape.join(','),
);

export function kyselyMagicLinkRepo(db: LatchkeyDb, statements: Statements): MagicLinkRepo {
  return {
    async insert(link) {
      const device = link.device_fingerprint === null ? null : toJson(link.device_fingerprint);
      await statements.run(
        insert,
        LINK_COLUMNS.map((c) => (c === 'device_fingerprint' ? device : link[c])),
      );
    },

    async consume(appId, tokenHash, now, maxAttempts, device) {
      const params = [maxAttempts, now, appId, tokenHash, ...deviceValues(device)];
      const [row] = await statements.run(consume, params, deviceShape(device));
      if (!row) return { ok: false, reason: 'not_found' };
      if (row.verdict === 'ok') return { ok: true, link: toRecord(row) };
      return { ok: false, reason: row.verdict };
    },

    async deleteByEmail(appId, emailId) {
      await db
        .deleteFrom('magic_links')
        .where('app_id', '=', appId)
        .where('email_id', '=', emailId)
        .execute();
    },
  };
}
