import type { UserName, UserRecord, UserRepo, UserStatus } from '@latchkey/core';
import { type Selectable, sql, type Updateable } from 'kysely';
import type { LatchkeyDb, UsersTable } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';
import { definedOnly, fromJson, toJson, toSeconds } from './columns.js';
import { toContactRecord } from './contact-repo.js';
import { writeWithEvents } from './event-repo.js';
import { toTotpRecord } from './totp-repo.js';
import { toWallet } from './wallet-repo.js';
import { toCredential } from './webauthn-repo.js';

const toRecord = (row: Selectable<UsersTable>): UserRecord => ({
  id: row.id,
  app_id: row.app_id,
  name: (fromJson(row.name) as UserName | null) ?? null,
  status: row.status as UserStatus,
  created_at: toSeconds(row.created_at),
  updated_at: toSeconds(row.updated_at),
});

// Named columns, not `*`: a prepared statement's result must keep its shape when a later
// migration adds a column while the process runs.
const USER_COLUMNS = [
  'id',
  'app_id',
  'name',
  'status',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof UsersTable>;

export const byId = defineStatement((db, [appId, userId]: [string, string]) =>
  db.selectFrom('users').select(USER_COLUMNS).where('app_id', '=', appId).where('id', '=', userId),
);

const jsonList = (alias: string, order: string) =>
  sql<unknown[]>`coalesce(json_agg(${sql.raw(alias)} order by ${sql.raw(order)}), '[]')`;

/**
 * The user and their sign-in methods in one row: each list aggregated to JSON (its rows keep
 * their column names, so each repo's own row reader converts them). Prepared: planning this
 * statement cost Postgres more than running it (about 0.45 of its 0.75 ms per read), and a
 * prepared plan is made once per connection. The user's columns are named, so the result keeps
 * its shape when a migration adds one; the lists are JSON, whatever their rows hold.
 */
export const withMethods = defineStatement((db, [appId, userId]: [string, string]) =>
  db
    .selectFrom('users as u')
    .select(USER_COLUMNS.map((c) => `u.${c}` as const))
    .select((eb) => [
      eb
        .selectFrom('emails as e')
        .select(jsonList('e', 'e.created_at, e.id').as('rows'))
        .whereRef('e.app_id', '=', 'u.app_id')
        .whereRef('e.user_id', '=', 'u.id')
        .as('emails'),
      eb
        .selectFrom('phone_numbers as p')
        .select(jsonList('p', 'p.created_at, p.id').as('rows'))
        .whereRef('p.app_id', '=', 'u.app_id')
        .whereRef('p.user_id', '=', 'u.id')
        .as('phone_numbers'),
      eb
        .selectFrom('totps as t')
        .select(sql<unknown>`row_to_json(t)`.as('row'))
        .whereRef('t.app_id', '=', 'u.app_id')
        .whereRef('t.user_id', '=', 'u.id')
        .orderBy(sql`t.status = 'active'`, 'desc')
        .orderBy('t.created_at', 'desc')
        .limit(1)
        .as('totp'),
      eb
        .selectFrom(
          eb
            .selectFrom('wallets as w0')
            .selectAll('w0')
            .whereRef('w0.app_id', '=', 'u.app_id')
            .whereRef('w0.user_id', '=', 'u.id')
            .orderBy('w0.id')
            .limit(1000)
            .as('w'),
        )
        .select(jsonList('w', 'w.id').as('rows'))
        .as('wallets'),
      eb
        .selectFrom('webauthn_credentials as c')
        .select(jsonList('c', 'c.created_at, c.id').as('rows'))
        .whereRef('c.app_id', '=', 'u.app_id')
        .whereRef('c.user_id', '=', 'u.id')
        .as('webauthn_credentials'),
    ])
    .where('u.app_id', '=', appId)
    .where('u.id', '=', userId),
);

// A null name is SQL NULL, not the JSON value null.
const nameColumn = (name: UserName | null) => (name === null ? null : toJson(name));

export function kyselyUserRepo(db: LatchkeyDb, statements: Statements): UserRepo {
  const insertUser = (user: UserRecord) =>
    db.insertInto('users').values({
      id: user.id,
      app_id: user.app_id,
      name: nameColumn(user.name),
      status: user.status,
      created_at: user.created_at,
      updated_at: user.updated_at,
    });
  const get = async (appId: string, userId: string) => {
    const [row] = await statements.run(byId, [appId, userId]);
    return row ? toRecord(row) : null;
  };

  return {
    get,

    // One statement, prepared: the user row with each list aggregated to JSON beside it.
    async getWithMethods(appId, userId) {
      const [row] = await statements.run(withMethods, [appId, userId]);
      if (!row) return null;
      const rows = <T>(value: unknown) => (fromJson(value) ?? []) as T[];
      const totp = fromJson(row.totp);
      return {
        user: toRecord(row),
        emails: rows<Parameters<typeof toContactRecord>[0]>(row.emails).map(toContactRecord),
        phone_numbers: rows<Parameters<typeof toContactRecord>[0]>(row.phone_numbers).map(toContactRecord),
        totp: totp ? toTotpRecord(totp as Parameters<typeof toTotpRecord>[0]) : null,
        wallets: rows<Parameters<typeof toWallet>[0]>(row.wallets).map(toWallet),
        webauthn_credentials: rows<Parameters<typeof toCredential>[0]>(row.webauthn_credentials).map(
          toCredential,
        ),
      };
    },

    async insert(user) {
      await insertUser(user).execute();
    },

    async insertWithEvents(user, events) {
      await writeWithEvents(db, insertUser(user).returning('id'), events);
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
