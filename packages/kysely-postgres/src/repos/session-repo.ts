import type { DeviceFingerprint, EventRecord, Factor, SessionRecord, SessionRepo } from '@latchkey/core';
import { type Insertable, type Selectable, sql } from 'kysely';
import type { LatchkeyDb, SessionsTable } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';
import { batched } from './batched.js';
import { copyJson, fromJson, toJson, toNullableSeconds, toSeconds } from './columns.js';
import { eventsParam, withEvents } from './event-repo.js';

const toRecord = (row: Selectable<SessionsTable>): SessionRecord => ({
  id: row.id,
  app_id: row.app_id,
  user_id: row.user_id,
  token_hash: row.token_hash,
  started_at: toSeconds(row.started_at),
  expires_at: toSeconds(row.expires_at),
  last_active_at: toSeconds(row.last_active_at),
  factors: fromJson(row.factors) as Factor[],
  device_fingerprint: (fromJson(row.device_fingerprint) as DeviceFingerprint | null) ?? null,
  revoked_at: toNullableSeconds(row.revoked_at),
  created_at: toSeconds(row.created_at),
  updated_at: toSeconds(row.updated_at),
  ...(row.organization_id === null ? {} : { organization_id: row.organization_id }),
});

// Named columns, not `*`: a prepared statement's result must keep its shape when a later
// migration adds a column while the process runs.
const COLUMNS = [
  'id',
  'app_id',
  'user_id',
  'token_hash',
  'started_at',
  'expires_at',
  'last_active_at',
  'factors',
  'device_fingerprint',
  'revoked_at',
  'created_at',
  'updated_at',
  'organization_id',
] as const satisfies ReadonlyArray<keyof SessionsTable>;

/** Sessions are looked up by id or by the hash of their token, always within one App. */
type SessionKey = 'id' | 'token_hash';

/**
 * Grouped lookups in flight at once. Measured 1, 2 and 4 (docs/benchmarks.md, batch20): more
 * than one split the same load into more statements, so more Postgres CPU per request, and gained
 * no server CPU.
 */
const GROUPED_IN_FLIGHT = 1;
const GROUPED_MAX = 200;

export const lookupOne = defineStatement(
  (db, [appId, value]: [string, string], key: SessionKey) =>
    db.selectFrom('sessions').select(COLUMNS).where('app_id', '=', appId).where(key, '=', value),
  (key) => key,
);

// One text for every group size (the keys travel as two arrays), so one prepared statement.
export const lookupMany = defineStatement(
  (db, [appIds, values]: [string[], string[]], key: SessionKey) =>
    db
      .selectFrom('sessions')
      .select(COLUMNS)
      .where(
        sql<boolean>`(${sql.ref('app_id')}, ${sql.ref(key)}) in (select * from unnest(cast(${appIds} as text[]), cast(${values} as text[])))`,
      ),
  (key) => key,
);

/**
 * `(appId, value) → row`. On a pg Pool, the calls that arrive while a lookup is in flight go
 * together as one statement on the next go (batched.ts): under load the server sends one
 * statement per round trip instead of one per request, and Postgres, which shares the machine,
 * parses, plans and answers one. Keys are deduplicated and every caller gets only the row
 * matching both its App and its value. A call alone runs the single-row statement.
 */
function sessionLookup(statements: Statements, key: SessionKey) {
  const single = async ([appId, value]: readonly [string, string]) =>
    (await statements.run(lookupOne, [appId, value], key))[0];
  if (!statements.onPool) return (appId: string, value: string) => single([appId, value]);
  const many = (appIds: string[], values: string[]) => statements.run(lookupMany, [appIds, values], key);
  const pairKey = (appId: string, value: string) => `${appId}\u0000${value}`;
  const grouped = batched(
    async (items: ReadonlyArray<readonly [string, string]>) => {
      if (items.length === 1) return [await single(items[0]!)];
      const unique = new Map<string, readonly [string, string]>();
      for (const item of items) unique.set(pairKey(...item), item);
      const pairs = [...unique.values()];
      const rows = await many(
        pairs.map(([appId]) => appId),
        pairs.map(([, value]) => value),
      );
      const found = new Map(rows.map((row) => [pairKey(row.app_id, row[key]), row]));
      // Callers with the same key each get their own copy: a record is the caller's to change.
      const given = new Set<Selectable<SessionsTable>>();
      return items.map((item) => {
        const row = found.get(pairKey(...item));
        if (row === undefined || !given.has(row)) {
          if (row) given.add(row);
          return row;
        }
        // The other columns are strings, numbers and Dates that toRecord only reads.
        return {
          ...row,
          factors: copyJson(row.factors) as typeof row.factors,
          device_fingerprint: copyJson(row.device_fingerprint) as typeof row.device_fingerprint,
        };
      });
    },
    { maxBatch: GROUPED_MAX, maxInFlight: GROUPED_IN_FLIGHT },
  );
  return (appId: string, value: string) => grouped([appId, value] as const);
}

/**
 * `count` sessions with their events (one JSON parameter, the last) in one statement: one text
 * per group size, the sessions' columns in COLUMNS order.
 */
export const insertSessions = defineStatement(
  (db, params: unknown[], count: number) => {
    const width = COLUMNS.length;
    const rows = Array.from({ length: count }, (_, i) =>
      Object.fromEntries(COLUMNS.map((c, j) => [c, params[i * width + j]])),
    ) as Insertable<SessionsTable>[];
    return withEvents(
      db,
      db.insertInto('sessions').values(rows).returning('id'),
      params[count * width] as string,
    );
  },
  (count) => String(count),
);

/** `statements`: the hot statements, compiled once (prepared-statements.ts). */
export function kyselySessionRepo(db: LatchkeyDb, statements: Statements): SessionRepo {
  const byId = sessionLookup(statements, 'id');
  const byTokenHash = sessionLookup(statements, 'token_hash');
  const row = (session: SessionRecord) => ({
    id: session.id,
    app_id: session.app_id,
    user_id: session.user_id,
    token_hash: session.token_hash,
    started_at: session.started_at,
    expires_at: session.expires_at,
    last_active_at: session.last_active_at,
    factors: toJson(session.factors),
    device_fingerprint: session.device_fingerprint === null ? null : toJson(session.device_fingerprint),
    revoked_at: session.revoked_at,
    created_at: session.created_at,
    updated_at: session.updated_at,
    organization_id: session.organization_id ?? null,
  });
  type Entry = { session: SessionRecord; events: EventRecord[] };
  const writeAll = async (entries: Entry[]) => {
    const params = entries.flatMap((e) => COLUMNS.map((c) => row(e.session)[c]));
    params.push(eventsParam(entries.flatMap((e) => e.events)));
    await statements.run(insertSessions, params, entries.length);
    return entries.map(() => undefined);
  };
  // Group commit: the sessions of concurrent sign-ins share a statement and its commit (each
  // caller still waits for its own to be written; a failed batch runs again one by one). A
  // caller's transaction shares nothing.
  const write = db.isTransaction ? (e: Entry) => writeAll([e]) : batched(writeAll);
  return {
    async insert(session) {
      await db.insertInto('sessions').values(row(session)).execute();
    },

    async insertWithEvents(session, events) {
      await write({ session, events });
    },

    async get(appId, sessionId) {
      const row = await byId(appId, sessionId);
      return row ? toRecord(row) : null;
    },

    async findByTokenHash(appId, tokenHash) {
      const row = await byTokenHash(appId, tokenHash);
      return row ? toRecord(row) : null;
    },

    async appIdByTokenHash(tokenHash) {
      // Two rows at most: a hash held by two Apps names neither (it cannot happen by chance).
      const rows = await db
        .selectFrom('sessions')
        .select('app_id')
        .where('token_hash', '=', tokenHash)
        .limit(2)
        .execute();
      return rows.length === 1 ? rows[0]!.app_id : null;
    },

    async touch(appId, sessionId, now, change) {
      // One UPDATE computed from the row it locks, so concurrent touches each add their factor. A
      // factor replaces the one of the same (type, method_id): the JWT carrying them stays small.
      const { expiresAt, factor } = change;
      const row = await db
        .updateTable('sessions')
        .set({
          last_active_at: now,
          updated_at: now,
          ...(expiresAt !== undefined
            ? { expires_at: sql<number>`greatest(${sql.ref('expires_at')}, ${expiresAt})` }
            : {}),
          ...(factor
            ? {
                factors: sql<string>`coalesce((select jsonb_agg(f order by n) from jsonb_array_elements(${sql.ref('factors')}) with ordinality as e(f, n) where not (f->>'type' = ${factor.type} and f->'method'->>'method_id' = ${factor.method.method_id})), '[]'::jsonb) || jsonb_build_array(cast(${toJson(factor)} as jsonb))`,
              }
            : {}),
        })
        .where('app_id', '=', appId)
        .where('id', '=', sessionId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .returningAll()
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async revoke(appId, sessionId, now) {
      const row = await db
        .updateTable('sessions')
        .set({ revoked_at: now, updated_at: now })
        .where('app_id', '=', appId)
        .where('id', '=', sessionId)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async revokeByUser(appId, userId, now, exceptId) {
      let query = db
        .updateTable('sessions')
        .set({ revoked_at: now, updated_at: now })
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null);
      if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
      return (await query.returningAll().execute()).map(toRecord);
    },

    async revokeByOrganization(appId, organizationId, now, userId) {
      let query = db
        .updateTable('sessions')
        .set({ revoked_at: now, updated_at: now })
        .where('app_id', '=', appId)
        .where('organization_id', '=', organizationId)
        .where('revoked_at', 'is', null);
      if (userId !== undefined) query = query.where('user_id', '=', userId);
      return (await query.returningAll().execute()).map(toRecord);
    },

    async revokedSince(since, appId) {
      // The revoked_at index gives them in order; session_id orders a second's revocations alike on every call.
      let query = db
        .selectFrom('session_revocations')
        .select(['app_id', 'session_id', 'revoked_at'])
        .where('revoked_at', '>=', since);
      if (appId !== undefined) query = query.where('app_id', '=', appId);
      const rows = await query.orderBy('revoked_at').orderBy('session_id').execute();
      return rows.map((r) => ({
        app_id: r.app_id,
        session_id: r.session_id,
        revoked_at: toSeconds(r.revoked_at),
      }));
    },

    async listLiveByUser(appId, userId, now) {
      const rows = await db
        .selectFrom('sessions')
        .select(COLUMNS)
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('last_active_at', 'desc')
        .orderBy('id', 'asc')
        .execute();
      return rows.map(toRecord);
    },
  };
}
