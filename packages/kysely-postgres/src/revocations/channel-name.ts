import { sql } from 'kysely';
import type { LatchkeyDb } from '../database.js';

/**
 * The channel the trigger of migration 0016 announces on: named by the oid of the schema that
 * holds the tables (the one `schema` names, or the search path finds), as the trigger names it.
 * Fails when the tables are not there: the migrations have not run.
 */
export async function revocationChannelName(db: LatchkeyDb, schema: string | undefined): Promise<string> {
  const table = schema ? `"${schema.replaceAll('"', '""')}".session_revocations` : 'session_revocations';
  const { rows } = await sql<{ ns: string | null }>`
    select (select relnamespace::oid::text from pg_catalog.pg_class where oid = to_regclass(${table})) as ns
  `.execute(db);
  const ns = rows[0]?.ns;
  if (!ns) {
    throw new Error(
      `Latchkey: no table ${table} to listen for session revocations on; run the migrations (0016_session_revocations).`,
    );
  }
  return `latchkey_session_revocations_${ns}`;
}
