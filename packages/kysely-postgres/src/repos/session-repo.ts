import type { DeviceFingerprint, Factor, SessionRecord, SessionRepo } from '@latchkey/core';
import { type Compilable, type CompiledQuery, type Selectable, sql } from 'kysely';
import type { LatchkeyDb, SessionsTable } from '../database.js';
import type { PreparedRead } from '../prepared-reads.js';
import { fromJson, toJson, toNullableSeconds, toSeconds } from './columns.js';

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
] as const satisfies ReadonlyArray<keyof SessionsTable>;

/**
 * A lookup by two values, compiled once: building and compiling the Kysely query on each call
 * cost as much Node time as the round trip on the per-request session reads. The query is
 * compiled through `db` (so its schema and plugins apply) with two marker values; when those come
 * back as its only parameters, in order, later calls swap in the real values, and run as a named
 * prepared statement when `read` is given (a pg Pool). Anything else (a plugin that adds
 * parameters) keeps the builder on every call.
 */
function preparedLookup(
  db: LatchkeyDb,
  read: PreparedRead | undefined,
  build: (a: string, b: string) => Compilable<Selectable<SessionsTable>>,
) {
  const markers = ['\u0000latchkey-a', '\u0000latchkey-b'] as const;
  let compiled: CompiledQuery<Selectable<SessionsTable>> | null | undefined;
  return async (a: string, b: string): Promise<Selectable<SessionsTable> | undefined> => {
    if (compiled === undefined) {
      const once = build(...markers).compile();
      const [first, second, ...rest] = once.parameters;
      compiled = first === markers[0] && second === markers[1] && rest.length === 0 ? once : null;
    }
    if (!compiled) return (await db.executeQuery(build(a, b))).rows[0];
    const query: CompiledQuery<Selectable<SessionsTable>> = { ...compiled, parameters: [a, b] };
    if (read) return (await read(query))[0] as Selectable<SessionsTable> | undefined;
    return (await db.executeQuery(query)).rows[0];
  };
}

/** `read`: the per-request lookups as named prepared statements (outside transactions, on a pg Pool). */
export function kyselySessionRepo(db: LatchkeyDb, read?: PreparedRead): SessionRepo {
  const byId = preparedLookup(db, read, (appId, sessionId) =>
    db.selectFrom('sessions').select(COLUMNS).where('app_id', '=', appId).where('id', '=', sessionId),
  );
  const byTokenHash = preparedLookup(db, read, (appId, tokenHash) =>
    db.selectFrom('sessions').select(COLUMNS).where('app_id', '=', appId).where('token_hash', '=', tokenHash),
  );
  return {
    async insert(session) {
      await db
        .insertInto('sessions')
        .values({
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
        })
        .execute();
    },

    async get(appId, sessionId) {
      const row = await byId(appId, sessionId);
      return row ? toRecord(row) : null;
    },

    async findByTokenHash(appId, tokenHash) {
      const row = await byTokenHash(appId, tokenHash);
      return row ? toRecord(row) : null;
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
  };
}
