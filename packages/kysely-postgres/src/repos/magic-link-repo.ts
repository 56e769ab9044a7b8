import type {
  DeviceFingerprint,
  MagicLinkConsumeFailure,
  MagicLinkKind,
  MagicLinkRecord,
  MagicLinkRepo,
} from '@latchkey/core';
import { type Selectable, sql } from 'kysely';
import type { LatchkeyDb, MagicLinksTable } from '../database.js';
import { fromJson, toJson, toNullableSeconds, toSeconds } from './columns.js';
import { deviceMatchSql } from './device-sql.js';

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

export function kyselyMagicLinkRepo(db: LatchkeyDb): MagicLinkRepo {
  return {
    async insert(link) {
      await db
        .insertInto('magic_links')
        .values({
          id: link.id,
          app_id: link.app_id,
          user_id: link.user_id,
          email_id: link.email_id,
          token_hash: link.token_hash,
          kind: link.kind,
          expires_at: link.expires_at,
          used_at: link.used_at,
          attempts: link.attempts,
          device_fingerprint: link.device_fingerprint === null ? null : toJson(link.device_fingerprint),
          created_at: link.created_at,
        })
        .execute();
    },

    async consume(appId, tokenHash, now, maxAttempts, device) {
      // As OtpRepo.consume: the CTE locks the link and judges its latest version, so of
      // concurrent consumes only the first sees it unused.
      const verdict = sql<MagicLinkConsumeFailure | 'ok'>`case
        when used_at is not null then 'used'
        when attempts >= ${maxAttempts} then 'too_many_attempts'
        when expires_at <= ${now} then 'expired'
        when not ${deviceMatchSql(device, 'magic_links')} then 'device_mismatch'
        else 'ok' end`;
      const row = await db
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
        .returningAll('magic_links')
        .returning('target.verdict')
        .executeTakeFirst();
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
