import type {
  AuthenticatorType,
  UserVerificationRequirement,
  WebAuthnCeremony,
  WebAuthnChallengeConsumeFailure,
  WebAuthnChallengeRecord,
  WebAuthnCredentialRecord,
  WebAuthnRepo,
} from '@latchkey/core';
import { type Insertable, type Selectable, sql } from 'kysely';
import type { LatchkeyDb, WebAuthnChallengesTable, WebAuthnCredentialsTable } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';
import { fromJson, toJson, toNullableSeconds, toSeconds } from './columns.js';

export const toCredential = (row: Selectable<WebAuthnCredentialsTable>): WebAuthnCredentialRecord => ({
  id: row.id,
  app_id: row.app_id,
  user_id: row.user_id,
  credential_id: row.credential_id,
  public_key: row.public_key,
  sign_count: toSeconds(row.sign_count),
  transports: fromJson(row.transports) as string[],
  aaguid: row.aaguid,
  rp_id: row.rp_id,
  authenticator_type: row.authenticator_type as AuthenticatorType | null,
  device_type: row.device_type as WebAuthnCredentialRecord['device_type'],
  backed_up: row.backed_up,
  name: row.name,
  created_at: toSeconds(row.created_at),
  last_used_at: toNullableSeconds(row.last_used_at),
});

const toChallenge = (row: Selectable<WebAuthnChallengesTable>): WebAuthnChallengeRecord => ({
  id: row.id,
  app_id: row.app_id,
  user_id: row.user_id,
  challenge_hash: row.challenge_hash,
  ceremony: row.ceremony as WebAuthnCeremony,
  rp_id: row.rp_id,
  user_verification: row.user_verification as UserVerificationRequirement,
  authenticator_type: row.authenticator_type as AuthenticatorType | null,
  expires_at: toSeconds(row.expires_at),
  used_at: toNullableSeconds(row.used_at),
  created_at: toSeconds(row.created_at),
});

const CHALLENGE_COLUMNS = [
  'id',
  'app_id',
  'user_id',
  'challenge_hash',
  'ceremony',
  'rp_id',
  'user_verification',
  'authenticator_type',
  'expires_at',
  'used_at',
  'created_at',
] as const satisfies ReadonlyArray<keyof WebAuthnChallengesTable>;

// Every passkey begin writes a challenge and clears the App's expired ones: both prepared.

/** A challenge's values in CHALLENGE_COLUMNS' order. */
export const insertChallenge = defineStatement((db, row: unknown[]) =>
  db
    .insertInto('webauthn_challenges')
    .values(
      Object.fromEntries(CHALLENGE_COLUMNS.map((c, i) => [c, row[i]])) as Insertable<WebAuthnChallengesTable>,
    ),
);

export const deleteExpiredChallenges = defineStatement((db, [appId, before]: [string, number]) =>
  db.deleteFrom('webauthn_challenges').where('app_id', '=', appId).where('expires_at', '<', before),
);

export function kyselyWebAuthnRepo(db: LatchkeyDb, statements: Statements): WebAuthnRepo {
  return {
    async insertChallenge(c) {
      await statements.run(
        insertChallenge,
        CHALLENGE_COLUMNS.map((column) => c[column]),
      );
    },

    async consumeChallenge(appId, challengeHash, ceremony, now) {
      // As MagicLinkRepo.consume: the CTE locks the challenge and judges its latest version, so
      // of concurrent consumes only the first sees it unused.
      const verdict = sql<WebAuthnChallengeConsumeFailure | 'ok'>`case
        when used_at is not null then 'used'
        when expires_at <= ${now} then 'expired'
        else 'ok' end`;
      const row = await db
        .with('target', (qb) =>
          qb
            .selectFrom('webauthn_challenges')
            .select(['id', verdict.as('verdict')])
            .where('app_id', '=', appId)
            .where('challenge_hash', '=', challengeHash)
            .where('ceremony', '=', ceremony)
            .limit(1)
            .forUpdate(),
        )
        .updateTable('webauthn_challenges')
        .from('target')
        .set({
          used_at: sql<number | null>`case when ${sql.ref('target.verdict')} = 'ok'
            then ${now} else ${sql.ref('webauthn_challenges.used_at')} end`,
        })
        .whereRef('webauthn_challenges.id', '=', 'target.id')
        .returningAll('webauthn_challenges')
        .returning('target.verdict')
        .executeTakeFirst();
      if (!row) return { ok: false, reason: 'not_found' };
      if (row.verdict === 'ok') return { ok: true, challenge: toChallenge(row) };
      return { ok: false, reason: row.verdict };
    },

    async deleteExpiredChallenges(appId, before) {
      await statements.run(deleteExpiredChallenges, [appId, before]);
    },

    async insertCredential(c) {
      // The unique (app_id, credential_id) decides the race; a duplicate is not an error.
      const row = await db
        .insertInto('webauthn_credentials')
        .values({
          id: c.id,
          app_id: c.app_id,
          user_id: c.user_id,
          credential_id: c.credential_id,
          public_key: c.public_key,
          sign_count: c.sign_count,
          transports: toJson(c.transports),
          aaguid: c.aaguid,
          rp_id: c.rp_id,
          authenticator_type: c.authenticator_type,
          device_type: c.device_type,
          backed_up: c.backed_up,
          name: c.name,
          created_at: c.created_at,
          last_used_at: c.last_used_at,
        })
        .onConflict((oc) => oc.columns(['app_id', 'credential_id']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return { inserted: row !== undefined };
    },

    async get(appId, id) {
      const row = await db
        .selectFrom('webauthn_credentials')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toCredential(row) : null;
    },

    async findByCredentialId(appId, credentialId) {
      const row = await db
        .selectFrom('webauthn_credentials')
        .selectAll()
        .where('app_id', '=', appId)
        .where('credential_id', '=', credentialId)
        .executeTakeFirst();
      return row ? toCredential(row) : null;
    },

    async listByUser(appId, userId) {
      const rows = await db
        .selectFrom('webauthn_credentials')
        .selectAll()
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toCredential);
    },

    async recordUse(appId, id, signCount, now) {
      // The row lock and the re-checked WHERE let one of concurrent callers advance the counter.
      const updated = await db
        .updateTable('webauthn_credentials')
        .set({ sign_count: signCount, last_used_at: now })
        .where('app_id', '=', appId)
        .where('id', '=', id)
        // A count of 0 passes only over a stored 0 (an authenticator that never counts).
        .where('sign_count', signCount === 0 ? '=' : '<', signCount)
        .returning('id')
        .executeTakeFirst();
      if (updated) return 'ok';
      const exists = await db
        .selectFrom('webauthn_credentials')
        .select('id')
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
      return exists ? 'counter_regression' : 'not_found';
    },

    async delete(appId, id) {
      const row = await db
        .deleteFrom('webauthn_credentials')
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toCredential(row) : null;
    },
  };
}
