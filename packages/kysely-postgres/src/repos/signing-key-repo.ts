import { LatchkeyError, type SigningKeyRecord, type SigningKeyRepo } from '@latchkey/core';
import type { Selectable } from 'kysely';
import type { LatchkeyDb, SigningKeysTable } from '../database.js';
import { fromJson, toJson, toNullableSeconds, toSeconds } from './columns.js';

const toRecord = (row: Selectable<SigningKeysTable>): SigningKeyRecord => ({
  id: row.id,
  app_id: row.app_id,
  alg: row.alg as SigningKeyRecord['alg'],
  public_jwk: fromJson(row.public_jwk) as Record<string, unknown>,
  sealed_private_key: row.sealed_private_key,
  created_at: toSeconds(row.created_at),
  retired_at: toNullableSeconds(row.retired_at),
});

export function kyselySigningKeyRepo(db: LatchkeyDb): SigningKeyRepo {
  const getActive = async (appId: string) => {
    const row = await db
      .selectFrom('signing_keys')
      .selectAll()
      .where('app_id', '=', appId)
      .where('retired_at', 'is', null)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  };

  return {
    getActive,

    async insertIfNoActive(key) {
      // The partial unique index (app_id) WHERE retired_at IS NULL decides the race; a loser
      // reads the winner's key. A retirement between the two statements sends it round again.
      for (let attempt = 0; attempt < 5; attempt++) {
        const inserted = await db
          .insertInto('signing_keys')
          .values({
            id: key.id,
            app_id: key.app_id,
            alg: key.alg,
            public_jwk: toJson(key.public_jwk),
            sealed_private_key: key.sealed_private_key,
            created_at: key.created_at,
            retired_at: key.retired_at,
          })
          .onConflict((oc) => oc.column('app_id').where('retired_at', 'is', null).doNothing())
          .returningAll()
          .executeTakeFirst();
        if (inserted) return toRecord(inserted);
        const active = await getActive(key.app_id);
        if (active) return active;
      }
      throw new LatchkeyError('internal_error', 'The active signing key kept changing; try again.');
    },

    async list(appId) {
      const rows = await db
        .selectFrom('signing_keys')
        .selectAll()
        .where('app_id', '=', appId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toRecord);
    },

    async retireActive(appId, now) {
      await db
        .updateTable('signing_keys')
        .set({ retired_at: now })
        .where('app_id', '=', appId)
        .where('retired_at', 'is', null)
        .execute();
    },
  };
}
