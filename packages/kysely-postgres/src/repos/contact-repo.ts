import type { ContactRecord, ContactRepo, EventRecord, FoundOrCreated, UserRecord } from '@latchkey/core';
import { type Selectable, sql } from 'kysely';
import type { ContactsTable, LatchkeyDb } from '../database.js';
import { toJson, toNullableSeconds, toSeconds } from './columns.js';
import { writeWithEvents } from './event-repo.js';

export const toContactRecord = (row: Selectable<ContactsTable>): ContactRecord => ({
  id: row.id,
  app_id: row.app_id,
  user_id: row.user_id,
  address: row.address,
  verified_at: toNullableSeconds(row.verified_at),
  created_at: toSeconds(row.created_at),
});

/**
 * ContactRepo.findOrCreateWithUser(AndEvents) in ONE statement of data-modifying CTEs, instead of
 * a lookup, then begin, two inserts and commit. `existing` is the address's contact; `contact`
 * inserts ours only when there is none, and does nothing when a concurrent creator holds the
 * address (the unique (app_id, address) decides, waiting for that creator to end); `new_user`
 * inserts the user only from the contact row actually inserted, so a lost race leaves no user.
 * The contact's foreign key to its user is checked at the end of the statement, when both rows
 * are in. A creator that committed after this statement's snapshot was taken is in neither
 * `existing` nor `contact`: then no row comes back and the caller reads again.
 */
async function findOrCreateWithUser(
  db: LatchkeyDb,
  table: 'emails' | 'phone_numbers',
  user: UserRecord,
  contact: ContactRecord,
  events: EventRecord[],
): Promise<FoundOrCreated> {
  const existing = db
    .selectFrom(table)
    .selectAll()
    .where('app_id', '=', contact.app_id)
    .where('address', '=', contact.address);
  const inserted = db
    .insertInto(table)
    .columns(['id', 'app_id', 'user_id', 'address', 'verified_at', 'created_at'])
    .expression(
      sql`select ${contact.id}::text, ${contact.app_id}::text, ${contact.user_id}::text, ${contact.address}::text, ${contact.verified_at}::bigint, ${contact.created_at}::bigint where not exists (select 1 from existing)`,
    )
    .onConflict((oc) => oc.columns(['app_id', 'address']).doNothing())
    .returningAll();
  const newUser = db
    .insertInto('users')
    .columns(['id', 'app_id', 'name', 'status', 'created_at', 'updated_at'])
    .expression(
      sql`select ${user.id}::text, ${user.app_id}::text, ${user.name === null ? null : toJson(user.name)}::jsonb, ${user.status}::text, ${user.created_at}::bigint, ${user.updated_at}::bigint from contact`,
    );
  const before = sql`existing as (${existing}), contact as (${inserted}), new_user as (${newUser})`;
  const written = db
    .selectFrom(
      sql<
        Selectable<ContactsTable> & { created: boolean }
      >`(select contact.*, true as created from contact union all select existing.*, false as created from existing)`.as(
        'found',
      ),
    )
    .selectAll();
  const [row] = await writeWithEvents(db, written, events, sql<boolean>`written.created`, before);
  if (!row) return { contact: null, user_created: false };
  const { created, ...columns } = row;
  return { contact: toContactRecord(columns), user_created: created };
}

/** One repository per contact table: `emails` or `phone_numbers`. */
export function kyselyContactRepo(db: LatchkeyDb, table: 'emails' | 'phone_numbers'): ContactRepo {
  // One statement: the unique (app_id, address) decides the race, and a duplicate is not an
  // error, so it never aborts an enclosing transaction.
  const insertContact = (contact: ContactRecord) =>
    db
      .insertInto(table)
      .values({
        id: contact.id,
        app_id: contact.app_id,
        user_id: contact.user_id,
        address: contact.address,
        verified_at: contact.verified_at,
        created_at: contact.created_at,
      })
      .onConflict((oc) => oc.columns(['app_id', 'address']).doNothing())
      .returning('id');
  return {
    async insert(contact) {
      return { inserted: (await insertContact(contact).executeTakeFirst()) !== undefined };
    },

    async insertWithEvents(contact, events) {
      return { inserted: (await writeWithEvents(db, insertContact(contact), events)).length > 0 };
    },

    findOrCreateWithUser: (user, contact) => findOrCreateWithUser(db, table, user, contact, []),

    findOrCreateWithUserAndEvents: (user, contact, events) =>
      findOrCreateWithUser(db, table, user, contact, events),

    async get(appId, id) {
      const row = await db
        .selectFrom(table)
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toContactRecord(row) : null;
    },

    async findByAddress(appId, address) {
      const row = await db
        .selectFrom(table)
        .selectAll()
        .where('app_id', '=', appId)
        .where('address', '=', address)
        .executeTakeFirst();
      return row ? toContactRecord(row) : null;
    },

    async listByUser(appId, userId) {
      const rows = await db
        .selectFrom(table)
        .selectAll()
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toContactRecord);
    },

    async markVerified(appId, id, at) {
      const row = await db
        .updateTable(table)
        .set({ verified_at: at })
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toContactRecord(row) : null;
    },

    async delete(appId, id) {
      const row = await db
        .deleteFrom(table)
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toContactRecord(row) : null;
    },
  };
}
