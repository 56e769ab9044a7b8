import type {
  EventRecord,
  EventRepo,
  EventType,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookRepo,
} from '@latchkey/core';
import { type Compilable, type OperationNodeSource, type Selectable, sql } from 'kysely';
import type { EventsTable, LatchkeyDb, WebhookDeliveriesTable, WebhookEndpointsTable } from '../database.js';
import { fromJson, toJson, toNullableSeconds, toSeconds } from './columns.js';
import { inTransaction } from './in-transaction.js';

const toEvent = (row: Selectable<EventsTable>): EventRecord => ({
  id: row.id,
  app_id: row.app_id,
  type: row.type as EventType,
  data: fromJson(row.data) as Record<string, unknown>,
  created_at: toSeconds(row.created_at),
});

const toEndpoint = (row: Selectable<WebhookEndpointsTable>): WebhookEndpointRecord => ({
  id: row.id,
  app_id: row.app_id,
  url: row.url,
  event_types: fromJson(row.event_types) as EventType[],
  sealed_secret: row.sealed_secret,
  status: row.status as WebhookEndpointRecord['status'],
  disabled_at: toNullableSeconds(row.disabled_at),
  created_at: toSeconds(row.created_at),
});

const toDelivery = (row: Selectable<WebhookDeliveriesTable>): WebhookDeliveryRecord => ({
  event_id: row.event_id,
  endpoint_id: row.endpoint_id,
  app_id: row.app_id,
  status: row.status as WebhookDeliveryRecord['status'],
  attempts: row.attempts,
  next_attempt_at: toSeconds(row.next_attempt_at),
  lease_until: toNullableSeconds(row.lease_until),
  last_attempt_at: toNullableSeconds(row.last_attempt_at),
  delivered_at: toNullableSeconds(row.delivered_at),
});

/**
 * One pending delivery, due at `due`, for each enabled endpoint of the event's App subscribed
 * to its type; on redelivery an existing row starts over.
 */
function owed(db: LatchkeyDb, event: EventRecord, due: number, endpointId?: string) {
  return db
    .insertInto('webhook_deliveries')
    .columns(['event_id', 'endpoint_id', 'app_id', 'status', 'attempts', 'next_attempt_at'])
    .expression((eb) =>
      eb
        .selectFrom('webhook_endpoints')
        .select([
          sql<string>`${event.id}::text`.as('event_id'),
          'id',
          'app_id',
          sql.lit('pending').as('status'),
          sql.lit(0).as('attempts'),
          sql<number>`${due}::bigint`.as('next_attempt_at'),
        ])
        .where('app_id', '=', event.app_id)
        .where('status', '=', 'enabled')
        .where(sql<boolean>`event_types @> ${toJson([event.type])}::jsonb`)
        .$if(endpointId !== undefined, (qb) => qb.where('id', '=', endpointId!)),
    );
}

/**
 * Runs `write` (an INSERT … RETURNING, or a SELECT) and, if it returned a row, inserts `events`
 * and the deliveries they owe (due at each event's time, as EventRepo.insert writes them), all
 * in ONE statement of data-modifying CTEs: one round trip and one commit instead of begin, three
 * inserts and commit. Every table is named through the builder, so the storage's schema applies.
 * Returns `write`'s rows.
 */
export async function writeWithEvents<Row>(
  db: LatchkeyDb,
  write: Compilable<Row> & OperationNodeSource,
  events: EventRecord[],
): Promise<Row[]> {
  if (events.length === 0) return (await sql<Row>`${write}`.execute(db)).rows;
  const values = sql.join(
    events.map(
      (e) =>
        sql`(${e.id}::text, ${e.app_id}::text, ${e.type}::text, ${toJson(e.data)}::jsonb, ${e.created_at}::bigint)`,
    ),
  );
  const newEvents = db
    .insertInto('events')
    .columns(['id', 'app_id', 'type', 'data', 'created_at'])
    .expression(
      sql`select * from (values ${values}) as v (id, app_id, type, data, created_at) where exists (select 1 from written)`,
    )
    .returning(['id', 'app_id', 'type', 'created_at']);
  const newDeliveries = db
    .insertInto('webhook_deliveries')
    .columns(['event_id', 'endpoint_id', 'app_id', 'status', 'attempts', 'next_attempt_at'])
    .expression(
      db
        .selectFrom(['webhook_endpoints as e', sql`new_events`.as('ne')])
        .select([
          sql<string>`ne.id`.as('event_id'),
          'e.id',
          'e.app_id',
          sql.lit('pending').as('status'),
          sql.lit(0).as('attempts'),
          sql<number>`ne.created_at`.as('next_attempt_at'),
        ])
        .where(sql<boolean>`e.app_id = ne.app_id`)
        .where('e.status', '=', 'enabled')
        .where(sql<boolean>`e.event_types @> jsonb_build_array(ne.type)`),
    );
  const statement = sql<Row>`with written as (${write}), new_events as (${newEvents}), new_deliveries as (${newDeliveries}) select * from written`;
  return (await statement.execute(db)).rows;
}

export function kyselyEventRepo(db: LatchkeyDb): EventRepo {
  return {
    async insert(event) {
      // The event and its deliveries in one statement (no transaction of its own needed).
      await writeWithEvents(db, db.selectNoFrom(sql.lit(1).as('one')), [event]);
    },
    async get(appId, eventId) {
      const row = await db
        .selectFrom('events')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', eventId)
        .executeTakeFirst();
      return row ? toEvent(row) : null;
    },
    async list(appId, { before, type, limit }) {
      let query = db.selectFrom('events').selectAll().where('app_id', '=', appId);
      if (type) query = query.where('type', '=', type);
      if (before) query = query.where('id', '<', before);
      return (await query.orderBy('id', 'desc').limit(limit).execute()).map(toEvent);
    },
  };
}

export function kyselyWebhookRepo(db: LatchkeyDb): WebhookRepo {
  return {
    async insertEndpoint(e) {
      await db
        .insertInto('webhook_endpoints')
        .values({ ...e, event_types: toJson(e.event_types) })
        .execute();
    },
    async getEndpoint(appId, endpointId) {
      const row = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', endpointId)
        .executeTakeFirst();
      return row ? toEndpoint(row) : null;
    },
    async listEndpoints(appId) {
      const rows = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('app_id', '=', appId)
        .orderBy('id')
        .execute();
      return rows.map(toEndpoint);
    },
    async deleteEndpoint(appId, endpointId) {
      // Deliveries and their attempts go with it (ON DELETE CASCADE).
      const row = await db
        .deleteFrom('webhook_endpoints')
        .where('app_id', '=', appId)
        .where('id', '=', endpointId)
        .returningAll()
        .executeTakeFirst();
      return row ? toEndpoint(row) : null;
    },
    async disableEndpoint(appId, endpointId, now) {
      return inTransaction(db, async (trx) => {
        const row = await trx
          .updateTable('webhook_endpoints')
          .set({ status: 'disabled', disabled_at: now })
          .where('app_id', '=', appId)
          .where('id', '=', endpointId)
          .where('status', '=', 'enabled')
          .returning('id')
          .executeTakeFirst();
        if (!row) return false;
        await trx
          .updateTable('webhook_deliveries')
          .set({ status: 'failed', lease_until: null })
          .where('endpoint_id', '=', endpointId)
          .where('status', '=', 'pending')
          .execute();
        return true;
      });
    },
    async claimDue(now, leaseUntil, limit) {
      // SKIP LOCKED: concurrent workers each take different rows instead of waiting; the lease
      // keeps a claimed row from being taken again after this statement commits.
      const rows = await db
        .with('due', (qb) =>
          qb
            .selectFrom('webhook_deliveries as d')
            .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
            .select(['d.event_id', 'd.endpoint_id'])
            .where('d.status', '=', 'pending')
            .where('d.next_attempt_at', '<=', now)
            .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<=', now)]))
            .where('e.status', '=', 'enabled')
            .orderBy('d.next_attempt_at')
            .limit(limit)
            .forUpdate(['d'])
            .skipLocked(),
        )
        .updateTable('webhook_deliveries')
        .from('due')
        .set({ lease_until: leaseUntil })
        .whereRef('webhook_deliveries.event_id', '=', 'due.event_id')
        .whereRef('webhook_deliveries.endpoint_id', '=', 'due.endpoint_id')
        .returningAll('webhook_deliveries')
        .execute();
      if (rows.length === 0) return [];
      const [events, endpoints] = await Promise.all([
        db
          .selectFrom('events')
          .selectAll()
          .where('id', 'in', [...new Set(rows.map((r) => r.event_id))])
          .execute(),
        db
          .selectFrom('webhook_endpoints')
          .selectAll()
          .where('id', 'in', [...new Set(rows.map((r) => r.endpoint_id))])
          .execute(),
      ]);
      const eventById = new Map(events.map((e) => [e.id, toEvent(e)]));
      const endpointById = new Map(endpoints.map((e) => [e.id, toEndpoint(e)]));
      return rows.flatMap((row) => {
        const event = eventById.get(row.event_id);
        const endpoint = endpointById.get(row.endpoint_id);
        return event && endpoint ? [{ delivery: toDelivery(row), event, endpoint }] : [];
      });
    },
    async recordAttempt(attempt: WebhookAttemptRecord, outcome) {
      await inTransaction(db, async (trx) => {
        const updated = await trx
          .updateTable('webhook_deliveries')
          .set((eb) => ({
            attempts: eb('attempts', '+', 1),
            lease_until: null,
            last_attempt_at: attempt.attempted_at,
            status: outcome.status,
            ...(outcome.status === 'delivered' ? { delivered_at: outcome.at } : {}),
            ...(outcome.status === 'pending' ? { next_attempt_at: outcome.next_attempt_at } : {}),
          }))
          .where('event_id', '=', attempt.event_id)
          .where('endpoint_id', '=', attempt.endpoint_id)
          .returning('event_id')
          .executeTakeFirst();
        // The endpoint was deleted mid-attempt: nothing is left to log against.
        if (updated) await trx.insertInto('webhook_attempts').values(attempt).execute();
      });
    },
    async listDeliveries(appId, eventId) {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('app_id', '=', appId)
        .where('event_id', '=', eventId)
        .orderBy('endpoint_id')
        .execute();
      return rows.map(toDelivery);
    },
    async listAttempts(appId, eventId) {
      const rows = await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('app_id', '=', appId)
        .where('event_id', '=', eventId)
        .orderBy('attempted_at')
        .orderBy('id')
        .execute();
      return rows.map((r) => ({
        ...r,
        attempted_at: toSeconds(r.attempted_at),
      }));
    },
    async redeliver(event, now, endpointId) {
      const rows = await owed(db, event, now, endpointId)
        .onConflict((oc) =>
          oc.columns(['event_id', 'endpoint_id']).doUpdateSet({
            status: 'pending',
            attempts: 0,
            next_attempt_at: now,
            lease_until: null,
            delivered_at: null,
          }),
        )
        .returning('endpoint_id')
        .execute();
      return rows.length;
    },
  };
}
