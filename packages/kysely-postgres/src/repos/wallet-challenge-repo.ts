import type {
  SignInWalletType,
  WalletChallengeConsumeFailure,
  WalletChallengeRecord,
  WalletChallengeRepo,
} from '@latchkey/core';
import { type Insertable, type Selectable, sql } from 'kysely';
import type { LatchkeyDb, WalletChallengesTable } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';
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

const CHALLENGE_COLUMNS = [
  'id',
  'app_id',
  'wallet_type',
  'public_address',
  'nonce',
  'message',
  'user_id',
  'expires_at',
  'used_at',
  'created_at',
] as const satisfies ReadonlyArray<keyof WalletChallengesTable>;

// The wallet sign-in's statements, compiled once (prepared-statements.ts).

/** A challenge's values in CHALLENGE_COLUMNS' order. */
export const insert = defineStatement((db, row: unknown[]) =>
  db
    .insertInto('wallet_challenges')
    .values(
      Object.fromEntries(CHALLENGE_COLUMNS.map((c, i) => [c, row[i]])) as Insertable<WalletChallengesTable>,
    ),
);

/**
 * As MagicLinkRepo.consume: the CTE locks the challenge and judges its latest version, so of
 * concurrent consumes only the first sees it unused.
 */
export const consume = defineStatement((db, [now, appId, nonce]: [number, string, string]) => {
  const verdict = sql<WalletChallengeConsumeFailure | 'ok'>`case
        when used_at is not null then 'used'
        when expires_at <= ${now} then 'expired'
        else 'ok' end`;
  return db
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
    .returning('target.verdict');
});

export const byNonce = defineStatement((db, [appId, nonce]: [string, string]) =>
  db.selectFrom('wallet_challenges').selectAll().where('app_id', '=', appId).where('nonce', '=', nonce),
);

export const deleteExpired = defineStatement((db, [appId, before]: [string, number]) =>
  db.deleteFrom('wallet_challenges').where('app_id', '=', appId).where('expires_at', '<', before),
);

export function kyselyWalletChallengeRepo(db: LatchkeyDb, statements: Statements): WalletChallengeRepo {
  return {
    async insert(c) {
      await statements.run(
        insert,
        CHALLENGE_COLUMNS.map((col) => c[col]),
      );
    },

    async consume(appId, nonce, now) {
      const [row] = await statements.run(consume, [now, appId, nonce]);
      if (!row) return { ok: false, reason: 'not_found' };
      if (row.verdict === 'ok') return { ok: true, challenge: toRecord(row) };
      return { ok: false, reason: row.verdict };
    },

    async get(appId, nonce) {
      const [row] = await statements.run(byNonce, [appId, nonce]);
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
      await statements.run(deleteExpired, [appId, before]);
    },
  };
}
