import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type AnyKysely, migrateToLatest, pendingMigrations } from '../src/index.js';
import { listedMigrations } from '../src/migrate.js';
import { migrations } from '../src/migrations/index.js';
import { pgliteDialect } from '../src/pglite-dialect.js';
import { DATABASE_URL, randomSchema } from './targets.js';

type Sql = <R = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<R[]>;

interface Database {
  sql: Sql;
  kysely: AnyKysely;
  close(): Promise<void>;
}

const openPglite = async (): Promise<Database> => {
  const db = await PGlite.create();
  const kysely = new Kysely({ dialect: pgliteDialect(db, false) });
  return {
    sql: async (text, params) => (await db.query(text, params)).rows as never,
    kysely,
    async close() {
      schemasMade.splice(0);
      await kysely.destroy();
      await db.close();
    },
  };
};

const schemasMade: string[] = [];
const openPostgres = async (): Promise<Database> => {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  const kysely = new Kysely({ dialect: new PostgresDialect({ pool }) });
  return {
    sql: async (text, params) => (await pool.query(text, params)).rows,
    kysely,
    async close() {
      for (const schema of schemasMade.splice(0))
        await pool.query(`drop schema if exists "${schema}" cascade`);
      await kysely.destroy();
    },
  };
};

const ALL = Object.keys(migrations);

/** Every column of every table in `schema`, as "table.column type nullable". */
async function shape(db: Database, schema: string): Promise<string[]> {
  const rows = await db.sql<{ line: string }>(
    `select table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable as line
       from information_schema.columns where table_schema = $1 order by 1`,
    [schema],
  );
  return rows.map((r) => r.line);
}

const backends: Array<[string, () => Promise<Database>]> = [['pglite', openPglite]];
if (DATABASE_URL) backends.push(['postgres', openPostgres]);

describe.each(backends)('pendingMigrations on %s', (_name, open) => {
  let db: Database;
  const schema = () => {
    const s = randomSchema();
    schemasMade.push(s);
    return s;
  };
  afterAll(() => db?.close());

  it('lists every migration with its CREATE TABLE statements on an empty schema, and creates nothing', async () => {
    db = await open();
    const s = schema();
    const pending = await pendingMigrations(db.kysely, { schema: s });
    expect(pending.map((p) => p.name)).toEqual(ALL);
    expect(pending[0]!.statements[0]).toMatch(new RegExp(`^create table "${s}"\\."apps" \\(`));
    expect(pending.flatMap((p) => p.statements).every((st) => !st.includes('/* parameters'))).toBe(true);
    // Nothing applied: no schema, no table, not even Kysely's bookkeeping.
    expect(await db.sql('select 1 from information_schema.schemata where schema_name = $1', [s])).toEqual([]);
  });

  it('prints SQL that, run by hand, builds the same tables as migrateToLatest', async () => {
    const byHand = schema();
    const migrated = schema();
    await db.sql(`create schema "${byHand}"`);
    for (const { statements } of await pendingMigrations(db.kysely, { schema: byHand }))
      for (const statement of statements) await db.sql(statement);
    await migrateToLatest(db.kysely, { schema: migrated });
    const [a, b] = [await shape(db, byHand), await shape(db, migrated)];
    expect(a.length).toBeGreaterThan(50);
    // The migrated schema also has Kysely's two bookkeeping tables.
    expect(b.filter((line) => !line.startsWith('kysely_migration'))).toEqual(a);
  });

  it('lists only what is left after a partial migration, and nothing once migrated', async () => {
    const s = schema();
    const migrator = new Migrator({
      db: db.kysely,
      provider: listedMigrations(s),
      migrationTableSchema: s,
    });
    const { error } = await migrator.migrateTo('0005_totps');
    expect(error).toBeUndefined();
    const left = await pendingMigrations(db.kysely, { schema: s });
    expect(left.map((p) => p.name)).toEqual(ALL.slice(ALL.indexOf('0005_totps') + 1));
    expect(left[0]!.statements.join('\n')).toContain(`"${s}".`);
    await migrateToLatest(db.kysely, { schema: s });
    expect(await pendingMigrations(db.kysely, { schema: s })).toEqual([]);
  });
});

describe('pendingMigrations on a source it opens', () => {
  it('takes { pglite, schema } like migrateToLatest and leaves the caller’s PGlite open', async () => {
    const pglite = await PGlite.create();
    try {
      const s = randomSchema();
      expect((await pendingMigrations({ pglite, schema: s })).length).toBe(ALL.length);
      await migrateToLatest({ pglite, schema: s });
      expect(await pendingMigrations({ pglite, schema: s })).toEqual([]);
      expect((await pglite.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pglite.close();
    }
  });
});
