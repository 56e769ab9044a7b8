import type { ContactRecord, ContactRepo } from '@latchkey/core';
import type { Selectable } from 'kysely';
import type { ContactsTable, LatchkeyDb } from '../database.js';
import { toNullableSeconds, toSeconds } from './columns.js';
import { writeWithEvents } from './event-repo.js';

export const toContactRecord = (row: Selectable<ContactsTable>): ContactRecord => ({
  id: row.id,
  app_id: row.app_id,
  user_id: row.user_id,
  address: row.address,
  verified_at: toNullableSeconds(row.verified_at),
  created_at: toSeconds(row.created_at),
});

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
