import type { UserName, UserRecord, UserRepo, UserStatus } from '@latchkey/core';
import type { Selectable, Updateable } from 'kysely';
import type { LatchkeyDb, UsersTable } from '../database.js';
import { definedOnly, fromJson, toJson, toSeconds } from './columns.js';

const toRecord = (row: Selectable<UsersTable>): UserRecord => ({
  id: row.id,
  app_id: row.app_id,
  name: (fromJson(row.name) as UserName | null) ?? null,
  status: row.status as UserStatus,
  created_at: toSeconds(row.created_at),
  updated_at: toSeconds(row.updated_at),
});

// A null name is SQL NULL, not the JSON value null.
const nameColumn = (name: UserName | null) => (name === null ? null : toJson(name));

export function kyselyUserRepo(db: LatchkeyDb): UserRepo {
  const get = async (appId: string, userId: string) => {
    const row = await db
      .selectFrom('users')
      .selectAll()
      .where('app_id', '=', appId)
      .where('id', '=', userId)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  };

  return {
    get,

    async insert(user) {
      await db
        .insertInto('users')
        .values({
          id: user.id,
          app_id: user.app_id,
          name: nameColumn(user.name),
          status: user.status,
          created_at: user.created_at,
          updated_at: user.updated_at,
        })
        .execute();
    },

    async update(appId, userId, patch) {
      const { name, ...rest } = definedOnly(patch);
      const set: Updateable<UsersTable> = { ...rest };
      if (name !== undefined) set.name = nameColumn(name);
      if (Object.keys(set).length === 0) return get(appId, userId);
      const row = await db
        .updateTable('users')
        .set(set)
        .where('app_id', '=', appId)
        .where('id', '=', userId)
        .returningAll()
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },
  };
}
