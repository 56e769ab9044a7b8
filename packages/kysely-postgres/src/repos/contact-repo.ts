import type {
  ContactRecord,
  ContactRepo,
  EventRecord,
  FoundOrCreated,
  MagicLinkRecord,
  UserRecord,
  UserStatus,
} from '@latchkey/core';
import { type Selectable, sql } from 'kysely';
import type { ContactsTable, LatchkeyDb } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';
import { toJson, toNullableSeconds, toSeconds } from './columns.js';
import { eventsParam, withEvents, writeWithEvents } from './event-repo.js';
import { firstLinkFromContact, firstLinkValues } from './magic-link-repo.js';
import { firstOtpFromContact, firstOtpValues } from './otp-repo.js';

export const toContactRecord = (row: Selectable<ContactsTable>): ContactRecord => ({
  id: row.id,
  app_id: row.app_id,
  user_id: row.user_id,
  address: row.address,
  verified_at: toNullableSeconds(row.verified_at),
  created_at: toSeconds(row.created_at),
});

const CONTACT_COLUMNS = [
  'id',
  'app_id',
  'user_id',
  'address',
  'verified_at',
  'created_at',
] as const satisfies ReadonlyArray<keyof ContactsTable>;

type ContactTable = 'emails' | 'phone_numbers';

/**
 * Its shape: the table, whether events are written (their number is a value), and what a new
 * contact's first code or link is, if the statement writes one.
 */
interface FindOrCreateShape {
  table: ContactTable;
  events: boolean;
  first?: 'otp' | 'link' | undefined;
}

/** The first code or link a created contact gets in the same statement, its values as its table's `first…Values`. */
type First = { kind: 'otp' | 'link'; values: unknown[] };

export const findOrCreate = defineStatement(
  (
    db,
    [
      appId,
      address,
      contactId,
      contactUserId,
      verifiedAt,
      contactCreatedAt,
      userId,
      userAppId,
      name,
      status,
      userCreatedAt,
      updatedAt,
      events,
      ...firstValues
    ]: [
      string,
      string,
      string,
      string,
      number | null,
      number,
      string,
      string,
      string | null,
      string,
      number,
      number,
      string | undefined,
      ...unknown[],
    ],
    { table, events: withEventsToo, first }: FindOrCreateShape,
  ) => {
    const existing = db
      .selectFrom(table)
      .select(CONTACT_COLUMNS)
      .where('app_id', '=', appId)
      .where('address', '=', address);
    const inserted = db
      .insertInto(table)
      .columns(CONTACT_COLUMNS)
      .expression(
        sql`select ${contactId}::text, ${appId}::text, ${contactUserId}::text, ${address}::text, ${verifiedAt}::bigint, ${contactCreatedAt}::bigint where not exists (select 1 from existing)`,
      )
      .onConflict((oc) => oc.columns(['app_id', 'address']).doNothing())
      .returning(CONTACT_COLUMNS);
    const newUser = db
      .insertInto('users')
      .columns(['id', 'app_id', 'name', 'status', 'created_at', 'updated_at'])
      .expression(
        sql`select ${userId}::text, ${userAppId}::text, ${name}::jsonb, ${status}::text, ${userCreatedAt}::bigint, ${updatedAt}::bigint from contact`,
      );
    // Only from the contact row this statement inserted: a found contact gets nothing here.
    const firstWrite =
      first === 'otp'
        ? sql`, first_code as (${firstOtpFromContact(db, firstValues)})`
        : first === 'link'
          ? sql`, first_link as (${firstLinkFromContact(db, firstValues)})`
          : sql``;
    const before = sql`existing as (${existing}), contact as (${inserted}), new_user as (${newUser})${firstWrite}`;
    const ownerStatus = db
      .selectFrom('users as u')
      .select('u.status')
      .where(sql<boolean>`u.app_id = existing.app_id and u.id = existing.user_id`);
    const written = db
      .selectFrom(
        // The found contact's user's status in the same statement, for a caller that chooses by it
        // (a magic link's kind): the created user's own, else the owner's as the snapshot has it.
        sql<
          Selectable<ContactsTable> & { created: boolean; user_status: string | null }
        >`(select contact.*, true as created, ${status}::text as user_status from contact union all select existing.*, false as created, (${ownerStatus}) as user_status from existing)`.as(
          'found',
        ),
      )
      .selectAll();
    return withEvents(db, written, withEventsToo ? events : undefined, sql<boolean>`written.created`, before);
  },
  ({ table, events, first }) => `${table}:${events}:${first ?? ''}`,
);

export const byAddress = defineStatement(
  (db, [appId, address]: [string, string], table: ContactTable) =>
    db.selectFrom(table).select(CONTACT_COLUMNS).where('app_id', '=', appId).where('address', '=', address),
  (table) => table,
);

const verify = (db: LatchkeyDb, table: ContactTable, at: number, appId: string, id: string) =>
  db
    .updateTable(table)
    .set({ verified_at: at })
    .where('app_id', '=', appId)
    .where('id', '=', id)
    .returning(CONTACT_COLUMNS);

export const markVerified = defineStatement(
  (db, [at, appId, id]: [number, string, string], table: ContactTable) => verify(db, table, at, appId, id),
  (table) => table,
);

/**
 * The keys of a contact's events' data, as core's write rules name them: the user, the contact's
 * id, its address. They must match core's so that the row this statement writes is the event
 * the events layer reports (the tests compare the two paths' events).
 */
const EVENT_KEYS = {
  emails: { id: 'email_id', address: 'email' },
  phone_numbers: { id: 'phone_id', address: 'phone_number' },
} as const satisfies Record<ContactTable, { id: string; address: string }>;

/**
 * The contact marked verified and its event in ONE statement (instead of begin, the update, the
 * event's insert and commit): the event's data is built from the updated row, so an id that
 * matches no contact writes no event.
 */
export const markVerifiedWithEvents = defineStatement(
  (db, [at, appId, id, events]: [number, string, string, string], table: ContactTable) => {
    const keys = EVENT_KEYS[table];
    const data = sql`jsonb_build_object('user_id', written.user_id, ${sql.lit(keys.id)}::text, written.id, ${sql.lit(keys.address)}::text, written.address)`;
    return withEvents(db, verify(db, table, at, appId, id), events, sql<boolean>`true`, undefined, data);
  },
  (table) => table,
);

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
  statements: Statements,
  table: ContactTable,
  user: UserRecord,
  contact: ContactRecord,
  events: EventRecord[],
  first?: First,
): Promise<FoundOrCreated> {
  const params = [
    contact.app_id,
    contact.address,
    contact.id,
    contact.user_id,
    contact.verified_at,
    contact.created_at,
    user.id,
    user.app_id,
    user.name === null ? null : toJson(user.name),
    user.status,
    user.created_at,
    user.updated_at,
    events.length > 0 ? eventsParam(events) : undefined,
    ...(first?.values ?? []),
  ] as const;
  const [row] = await statements.run(findOrCreate, [...params], {
    table,
    events: events.length > 0,
    first: first?.kind,
  });
  if (!row) return { contact: null, user_created: false };
  const { created, user_status, ...columns } = row;
  return {
    contact: toContactRecord(columns),
    user_created: created,
    user_status: user_status as UserStatus | null,
  };
}

/** One repository per contact table: `emails` or `phone_numbers`. */
export function kyselyContactRepo(db: LatchkeyDb, statements: Statements, table: ContactTable): ContactRepo {
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

    findOrCreateWithUser: (user, contact) => findOrCreateWithUser(statements, table, user, contact, []),

    findOrCreateWithUserAndEvents: (user, contact, events) =>
      findOrCreateWithUser(statements, table, user, contact, events),

    findOrCreateWithUserAndOtp: (user, contact, otp) =>
      findOrCreateWithUser(statements, table, user, contact, [], {
        kind: 'otp',
        values: firstOtpValues(otp),
      }),

    findOrCreateWithUserOtpAndEvents: (user, contact, otp, events) =>
      findOrCreateWithUser(statements, table, user, contact, events, {
        kind: 'otp',
        values: firstOtpValues(otp),
      }),

    // A link goes to an email: the phone numbers' repo has none to write.
    ...(table === 'emails'
      ? {
          findOrCreateWithUserAndLink: (user: UserRecord, contact: ContactRecord, link: MagicLinkRecord) =>
            findOrCreateWithUser(statements, table, user, contact, [], {
              kind: 'link',
              values: firstLinkValues(link),
            }),
          findOrCreateWithUserLinkAndEvents: (
            user: UserRecord,
            contact: ContactRecord,
            link: MagicLinkRecord,
            events: EventRecord[],
          ) =>
            findOrCreateWithUser(statements, table, user, contact, events, {
              kind: 'link',
              values: firstLinkValues(link),
            }),
        }
      : {}),

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
      const [row] = await statements.run(byAddress, [appId, address], table);
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
      const [row] = await statements.run(markVerified, [at, appId, id], table);
      return row ? toContactRecord(row) : null;
    },

    async markVerifiedWithEvents(appId, id, at, events) {
      const [row] = await statements.run(markVerifiedWithEvents, [at, appId, id, eventsParam(events)], table);
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
