import type {
  ClaimLimits,
  EventRecord,
  EventRepo,
  EventType,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookRepo,
} from '@latchkey/core';
import { type Compilable, type OperationNodeSource, type RawBuilder, type Selectable, sql } from 'kysely';
import type { EventsTable, LatchkeyDb, WebhookDeliveriesTable, WebhookEndpointsTable } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';
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
  consecutive_failures: row.consecutive_failures,
  paused_until: toNullableSeconds(row.paused_until),
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

/** The events as one parameter (a JSON array): one statement text for any number of them. */
export const eventsParam = (events: EventRecord[]): string =>
  toJson(
    events.map((e) => ({ id: e.id, app_id: e.app_id, type: e.type, data: e.data, created_at: e.created_at })),
  );

/**
 * `write` (an INSERT … RETURNING, or a SELECT) and, if it returned a row, `events` and the
 * deliveries they owe inserted (due at each event's time, as EventRepo.insert writes them), all
 * in ONE statement of data-modifying CTEs: one round trip and one commit instead of begin, three
 * inserts and commit. Every table is named through the builder, so the storage's schema applies.
 * Its rows are `write`'s. `events`: eventsParam's JSON, passed as the statement's value (so the
 * text is the same for any events); absent, no events are written. `which`: a condition on
 * `written` (the write's rows) and `v` (an event's row) naming the events to write, when `events`
 * are alternatives; by default all of them. `before`: CTEs (`name as (…), …`) that `write`
 * reads, for writes no single statement makes. `data`: a jsonb expression over `written`'s row
 * that replaces each event's given data, for events whose data is the written row's (an UPDATE's
 * columns the caller could not know); an event is then written for each row `which` holds for, so
 * `write` must change at most one row (each event's id is given once).
 */
export function withEvents<Row>(
  db: LatchkeyDb,
  write: Compilable<Row> & OperationNodeSource,
  events: string | undefined,
  which: RawBuilder<boolean> = sql<boolean>`true`,
  before?: RawBuilder<unknown>,
  data?: RawBuilder<unknown>,
): RawBuilder<Row> {
  if (events === undefined) return before ? sql<Row>`with ${before} ${write}` : sql<Row>`${write}`;
  const given = sql`jsonb_to_recordset(${events}::jsonb) as v (id text, app_id text, type text, data jsonb, created_at bigint)`;
  const newEvents = db
    .insertInto('events')
    .columns(['id', 'app_id', 'type', 'data', 'created_at'])
    .expression(
      data
        ? sql`select v.id, v.app_id, v.type, ${data}, v.created_at from ${given} cross join written where ${which}`
        : sql`select v.id, v.app_id, v.type, v.data, v.created_at from ${given} where exists (select 1 from written where ${which})`,
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
  const lead = before ? sql`with ${before},` : sql`with`;
  return sql<Row>`${lead} written as (${write}), new_events as (${newEvents}), new_deliveries as (${newDeliveries}) select * from written`;
}

/** withEvents, built and run here: for the writes that are not on a hot path. */
export async function writeWithEvents<Row>(
  db: LatchkeyDb,
  write: Compilable<Row> & OperationNodeSource,
  events: EventRecord[],
  which: RawBuilder<boolean> = sql<boolean>`true`,
  before?: RawBuilder<unknown>,
): Promise<Row[]> {
  const param = events.length > 0 ? eventsParam(events) : undefined;
  return (await withEvents(db, write, param, which, before).execute(db)).rows;
}

/** An event alone (the `written` row is a constant), compiled once. */
export const insertEvent = defineStatement((db, [events]: [string]) =>
  withEvents(db, db.selectNoFrom(sql.lit(1).as('one')), events),
);

export function kyselyEventRepo(db: LatchkeyDb, statements: Statements): EventRepo {
  return {
    async insert(event) {
      // The event and its deliveries in one statement (no transaction of its own needed).
      await statements.run(insertEvent, [eventsParam([event])]);
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

/**
 * The fair claim, in one statement. `busy` counts live leases (every worker's attempts in
 * flight); `open` is each enabled, unpaused endpoint with the room it has left under its cap (1
 * while failing); `due` takes at most that many of each open endpoint's oldest due
 * deliveries through its index, so the scan is bounded by endpoints and caps, not by how large
 * an App's backlog has grown; `ranked` deals an App's endpoints in turn and keeps what fits the
 * App's room; `picked` puts every App's n-th before any App's (n+1)-th. SKIP LOCKED and the
 * re-checked lease keep two workers off one delivery.
 */
function claimStatement(
  table: (name: string) => ReturnType<typeof sql.table>,
  now: number,
  leaseUntil: number,
  { limit, perApp, perEndpoint }: ClaimLimits,
) {
  const deliveries = table('webhook_deliveries');
  const endpoints = table('webhook_endpoints');
  const at = sql`${now}::bigint`;
  return sql<Selectable<WebhookDeliveriesTable>>`
    with busy as (
      select app_id, endpoint_id, count(*)::int as n from ${deliveries}
      where lease_until is not null and lease_until > ${at} and status = 'pending'
      group by app_id, endpoint_id
    ),
    app_busy as (select app_id, sum(n)::int as n from busy group by app_id),
    open as (
      select e.id,
        (case when e.consecutive_failures > 0 then 1 else ${perEndpoint}::int end) - coalesce(b.n, 0) as room
      from ${endpoints} e left join busy b on b.endpoint_id = e.id
      where e.status = 'enabled' and (e.paused_until is null or e.paused_until <= ${at})
    ),
    due as (
      select d.event_id, d.endpoint_id, d.app_id, d.next_attempt_at,
        row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.event_id) as endpoint_rank
      from open o cross join lateral (
        select x.event_id, x.endpoint_id, x.app_id, x.next_attempt_at from ${deliveries} x
        where x.endpoint_id = o.id and x.status = 'pending' and x.next_attempt_at <= ${at}
          and (x.lease_until is null or x.lease_until <= ${at})
        order by x.next_attempt_at, x.event_id
        limit greatest(o.room, 0)
      ) d
    ),
    ranked as (
      select due.*, row_number() over (
        partition by due.app_id order by due.endpoint_rank, due.next_attempt_at, due.endpoint_id
      ) as app_rank
      from due
    ),
    picked as (
      select r.event_id, r.endpoint_id from ranked r
      where r.app_rank <= ${perApp}::int - coalesce((select ab.n from app_busy ab where ab.app_id = r.app_id), 0)
      order by r.app_rank, r.next_attempt_at, r.app_id, r.endpoint_id, r.event_id
      limit ${limit}::int
    ),
    locked as (
      select x.event_id, x.endpoint_id from ${deliveries} x
      join picked p on p.event_id = x.event_id and p.endpoint_id = x.endpoint_id
      where x.status = 'pending' and (x.lease_until is null or x.lease_until <= ${at})
      for update of x skip locked
    )
    update ${deliveries} as w set lease_until = ${leaseUntil}::bigint
    from locked where w.event_id = locked.event_id and w.endpoint_id = locked.endpoint_id
    returning w.*`;
}

export function kyselyWebhookRepo(db: LatchkeyDb, schema?: string): WebhookRepo {
  const table = (name: string) => sql.table(schema ? `${schema}.${name}` : name);
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
    async claimDue(now, leaseUntil, limits) {
      const rows = await inTransaction(db, async (trx) => {
        // Claims run one at a time per schema, each reading the leases the ones before it
        // committed (a fresh snapshot per statement), so the caps hold across processes.
        await sql`select pg_advisory_xact_lock(hashtext(coalesce(${schema ?? null}::text, current_schema()) || '.latchkey_webhook_claim'))`.execute(
          trx,
        );
        return (await claimStatement(table, now, leaseUntil, limits).execute(trx)).rows;
      });
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
        if (!updated) return;
        await trx.insertInto('webhook_attempts').values(attempt).execute();
        const endpoint = trx.updateTable('webhook_endpoints').where('id', '=', attempt.endpoint_id);
        if (outcome.status === 'delivered')
          // A healthy endpoint's row is not written on every delivery, only when it recovers.
          await endpoint
            .set({ consecutive_failures: 0, paused_until: null })
            .where((eb) => eb.or([eb('consecutive_failures', '<>', 0), eb('paused_until', 'is not', null)]))
            .execute();
        else
          await endpoint
            .set((eb) => ({
              consecutive_failures: eb('consecutive_failures', '+', 1),
              paused_until: sql<number>`greatest(coalesce(${eb.ref('paused_until')}, 0), ${outcome.endpoint_paused_until}::bigint)`,
            }))
            .execute();
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
