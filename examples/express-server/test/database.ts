import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/** Set (e.g. postgres://postgres@127.0.0.1:5432/test) to run the servers on Postgres. */
export const DATABASE_URL = process.env.DATABASE_URL || undefined;

/** Where a spawned server keeps its data: its env, and how to remove what it stored. */
export interface StorageTarget {
  env: Record<string, string | undefined>;
  /** Postgres schema, when on Postgres. */
  schema: string | undefined;
  dispose(): Promise<void>;
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * On Postgres (DATABASE_URL set): a schema of its own, dropped by `dispose`. Otherwise embedded
 * PGlite in the data folder, removed with the folder.
 */
export function storageTarget(): StorageTarget {
  if (!DATABASE_URL) return { env: {}, schema: undefined, dispose: async () => {} };
  const schema = `lk_example_${randomBytes(6).toString('hex')}`;
  return {
    env: { DATABASE_URL, LATCHKEY_DB_SCHEMA: schema },
    schema,
    async dispose() {
      await withClient(DATABASE_URL, (c) => c.query(`drop schema if exists "${schema}" cascade`));
    },
  };
}

const TABLES_SQL = `select table_schema, table_name from information_schema.tables
  where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
    and table_schema not like 'pg\\_%' and ($1::text is null or table_schema = $1)
  order by 1, 2`;

type Query = (sql: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

async function dump(query: Query, schema: string | undefined) {
  const tables = (await query(TABLES_SQL, [schema ?? null])) as Array<{
    table_schema: string;
    table_name: string;
  }>;
  const lines: string[] = [];
  for (const { table_schema, table_name } of tables) {
    const rows = await query(`select t::text as row from "${table_schema}"."${table_name}" t`);
    for (const { row } of rows) lines.push(`${table_schema}.${table_name}: ${row}`);
  }
  return { tables: tables.map((t) => t.table_name), text: lines.join('\n') };
}

/**
 * Every row of every table, as text. PGlite: all non-system schemas of the data folder (the
 * server must be stopped). Postgres: the target's schema (other runs share the database).
 */
export async function dumpDatabase(
  dataDir: string,
  target: StorageTarget,
): Promise<{ tables: string[]; text: string }> {
  if (target.schema && DATABASE_URL) {
    const schema = target.schema;
    return withClient(DATABASE_URL, (c) =>
      dump(async (sql, params) => (await c.query(sql, params)).rows, schema),
    );
  }
  const pglite = new PGlite(path.join(dataDir, 'pglite'));
  try {
    await pglite.waitReady;
    return await dump(async (sql, params) => (await pglite.query(sql, params)).rows as never, undefined);
  } finally {
    await pglite.close();
  }
}
