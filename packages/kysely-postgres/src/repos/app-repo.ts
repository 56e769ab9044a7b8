import { type ApiKeyKind, type AppRecord, type AppRepo, appSettingsSchema } from '@latchkey/core';
import type { Selectable, Updateable } from 'kysely';
import type { AppsTable, LatchkeyDb } from '../database.js';
import { definedOnly, fromJson, toJson, toNullableSeconds, toSeconds } from './columns.js';

// Settings are parsed on every read, so a setting added later takes its default for older Apps.
const toRecord = (row: Selectable<AppsTable>): AppRecord => ({
  id: row.id,
  name: row.name,
  secret_key_hash: row.secret_key_hash,
  public_token_hash: row.public_token_hash,
  previous_secret_key_hash: row.previous_secret_key_hash,
  previous_secret_key_expires_at: toNullableSeconds(row.previous_secret_key_expires_at),
  settings: appSettingsSchema.parse(fromJson(row.settings)),
  created_at: toSeconds(row.created_at),
  updated_at: toSeconds(row.updated_at),
});

export function kyselyAppRepo(db: LatchkeyDb): AppRepo {
  const get = async (appId: string) => {
    const row = await db.selectFrom('apps').selectAll().where('id', '=', appId).executeTakeFirst();
    return row ? toRecord(row) : null;
  };

  return {
    get,

    async insert(app) {
      await db
        .insertInto('apps')
        .values({
          id: app.id,
          name: app.name,
          secret_key_hash: app.secret_key_hash,
          public_token_hash: app.public_token_hash,
          previous_secret_key_hash: app.previous_secret_key_hash,
          previous_secret_key_expires_at: app.previous_secret_key_expires_at,
          settings: toJson(app.settings),
          created_at: app.created_at,
          updated_at: app.updated_at,
        })
        .execute();
    },

    async list() {
      const rows = await db.selectFrom('apps').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toRecord);
    },

    async findByKeyHash(keyHash, now) {
      // One statement over three indexed columns; the kind is decided here, current keys first.
      const rows = await db
        .selectFrom('apps')
        .selectAll()
        .where((eb) =>
          eb.or([
            eb('secret_key_hash', '=', keyHash),
            eb('public_token_hash', '=', keyHash),
            eb.and([
              eb('previous_secret_key_hash', '=', keyHash),
              eb('previous_secret_key_expires_at', '>', now),
            ]),
          ]),
        )
        .execute();
      const kinds: Array<[ApiKeyKind, (row: Selectable<AppsTable>) => boolean]> = [
        ['secret', (r) => r.secret_key_hash === keyHash],
        ['public', (r) => r.public_token_hash === keyHash],
        ['secret', (r) => r.previous_secret_key_hash === keyHash],
      ];
      for (const [kind, matches] of kinds) {
        const row = rows.find(matches);
        if (row) return { app: toRecord(row), kind };
      }
      return null;
    },

    async update(appId, patch) {
      const { settings, ...rest } = definedOnly(patch);
      const set: Updateable<AppsTable> = { ...rest };
      if (settings !== undefined) set.settings = toJson(settings);
      if (Object.keys(set).length === 0) return get(appId);
      const row = await db
        .updateTable('apps')
        .set(set)
        .where('id', '=', appId)
        .returningAll()
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },
  };
}
