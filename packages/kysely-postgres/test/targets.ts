import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import type { Storage } from '@latchkey/core';
import pg from 'pg';
import { kyselyStorage, postgresStorage, type StorageSetup } from '../src/index.js';

/** Set to run the Postgres cases too, e.g. postgres://postgres@127.0.0.1:5432/test. */
export const DATABASE_URL = process.env.DATABASE_URL;

/** A schema no other run uses; Postgres tests drop it afterwards. */
export const randomSchema = () => `latchkey_test_${randomBytes(6).toString('hex')}`;

/** A Storage in a schema of its own, raw SQL on the same database, and its clean-up. */
export interface Harness {
  storage: Storage;
  schema: string;
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  dispose(): Promise<void>;
}

export interface Target {
  name: 'pglite' | 'postgres';
  open(setup?: StorageSetup): Promise<Harness>;
}

export const pgliteTarget: Target = {
  name: 'pglite',
  async open(setup = { migrate: true }) {
    const pglite = await PGlite.create();
    const schema = setup.schema ?? randomSchema();
    const storage = await kyselyStorage({ pglite, ...setup, schema });
    return {
      storage,
      schema,
      sql: async (text, params) => (await pglite.query(text, params)).rows as never,
      async dispose() {
        await storage.close();
        await pglite.close();
      },
    };
  },
};

/**
 * Postgres through a pool of `pool.max` connections: 10 by default, one where a test needs every
 * statement on the session a leak would reach.
 */
export const postgresTargetWith = ({ pool = { max: 10 } }: { pool?: { max: number } } = {}): Target => ({
  name: 'postgres',
  async open(setup = { migrate: true }) {
    const url = DATABASE_URL!;
    const schema = setup.schema ?? randomSchema();
    const storage = await postgresStorage(url, { ...setup, schema, pool: { max: pool.max } });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    return {
      storage,
      schema,
      sql: async (text, params) => (await admin.query(text, params)).rows,
      async dispose() {
        await storage.close();
        await admin.query(`drop schema if exists "${schema}" cascade`);
        await admin.end();
      },
    };
  },
});

export const postgresTarget: Target = postgresTargetWith();

/** PGlite always; Postgres when DATABASE_URL is set. */
export const targets: Target[] = DATABASE_URL ? [pgliteTarget, postgresTarget] : [pgliteTarget];
