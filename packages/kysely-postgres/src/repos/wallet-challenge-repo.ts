import type {
  SignInWalletType,
  WalletChallengeConsumeFailure,
  WalletChallengeRecord,
  WalletChallengeRepo,
} from '@latchkey/core';
import { type Selectable, sql } from 'kysely';
import type { LatchkeyDb, WalletChallengesTable } from '../database.js';
import { toNullableSeconds, toSeconds } from './columns.js';

const toRecord = (row: Selectable<WalletChallengesTable>): WalletChallengeRecord => ({
  id: row.id,
  app_id: row.app_id,
  wallet_type: row.wallet_type as SignInWalletType,
  public_address: row.public_address,
  nonce: row.nonce,
  message: row.message,
  user_id: row.user_id,
  expires_at: toSeconds(row.expires_at),
  used_at: toNullableSeconds(row.used_at),
  created_at: toSeconds(row.created_at),
});

export function kyselyWalletChallengeRepo(db: LatchkeyDb): WalletChallengeRepo {
  return {
    async insert(c) {
      await db
        .insertInto('wallet_challenges')
        .values({
          id: c.id,
          app_id: c.app_id,
          wallet_type: c.wallet_type,
          public_address: c.public_address,
          nonce: c.nonce,
          message: c.message,
          user_id: c.user_id,
          expires_at: c.expires_at,
          used_at: c.used_at,
          created_at: c.created_at,
        })
        .execute();
    },

    async consume(appId, nonce, now) {
      // As MagicLinkRepo.consume: the CTE locks the challenge and judges its latest version, so
      // of concurrent consumes only the first sees it unused.
      const verdict = sql<WalletChallengeConsumeFailure | 'ok'>`case
        when used_at is not null then 'used'
        when expires_at <= ${now} then 'expired'
        else 'ok' end`;
      const row = await db
        .with('target', (qb) =>
          qb
            .selectFrom('wallet_challenges')
            .select(['id', verdict.as('verdict')])
            .where('app_id', '=', appId)
            .where('nonce', '=', nonce)
            .forUpdate(),
        )
        .updateTable('wallet_challenges')
        .from('target')
        .set({
          used_at: sql<number | null>`case when ${sql.ref('target.verdict')} = 'ok'
            then ${now} else ${sql.ref('wallet_challenges.used_at')} end`,
        })
        .whereRef('wallet_challenges.id', '=', 'target.id')
        .returningAll('wallet_challenges')
        .returning('target.verdict')
        .executeTakeFirst();
      if (!row) return { ok: false, reason: 'not_found' };
      if (row.verdict === 'ok') return { ok: true, challenge: toRecord(row) };
      return { ok: false, reason: row.verdict };
    },

    async get(appId, nonce) {
      const row = await db
        .selectFrom('wallet_challenges')
        .selectAll()
        .where('app_id', '=', appId)
        .where('nonce', '=', nonce)
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async latest(appId, walletType, address) {
      const row = await db
        .selectFrom('wallet_challenges')
        .selectAll()
        .where('app_id', '=', appId)
        .where('wallet_type', '=', walletType)
        .where('public_address', '=', address)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async deleteExpired(appId, before) {
      await db
        .deleteFrom('wallet_challenges')
        .where('app_id', '=', appId)
        .where('expires_at', '<', before)
        .execute();
    },
  };
}
