import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { LatchkeyError } from '@latchkey/core';
import { makeApp, makeContact, makeUser } from '@latchkey/storage-conformance';
import { Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KyselyStorageOptions, kyselyStorage, migrateToLatest, pgliteStorage } from '../src/index.js';
import { migrations } from '../src/migrations/index.js';
import { pgliteDialect } from '../src/pglite-dialect.js';
import { DATABASE_URL, randomSchema } from './targets.js';

describe('what the host passes in', () => {
  let pglite: PGlite;
  beforeAll(async () => {
    pglite = await PGlite.create();
  });
  afterAll(async () => {
    await pglite?.close();
  });

  it('asks for exactly one of pool, pglite or db', async () => {
    const none = {} as KyselyStorageOptions;
    const two = { pglite, db: new Kysely({ dialect: pgliteDialect(pglite, false) }) } as never;
    for (const options of [none, two]) {
      const refused = kyselyStorage(options);
      await expect(refused).rejects.toBeInstanceOf(LatchkeyError);
      await expect(refused).rejects.toMatchObject({ errorType: 'internal_error' });
    }
  });

  it('leaves a PGlite it was given open on close()', async () => {
    const storage = await kyselyStorage({ pglite, schema: 'lk_given', migrate: true });
    const app = makeApp();
    await storage.apps.insert(app);
    await storage.close();
    expect(pglite.closed).toBe(false);
    expect(await pglite.query('select id from lk_given.apps')).toMatchObject({ rows: [{ id: app.id }] });
  });

  it("works on the host's Kysely, and joins the host's own transaction", async () => {
    const db = new Kysely({ dialect: pgliteDialect(pglite, false) });
    expect(await migrateToLatest(db, { schema: 'lk_host' })).toEqual({ applied: Object.keys(migrations) });
    const storage = await kyselyStorage({ db, schema: 'lk_host' });
    const kept = makeApp();
    await storage.apps.insert(kept);

    // A Storage on the host's transaction: its writes commit or roll back with the host's.
    const dropped = makeApp();
    const hostFailure = new Error('host rolls back');
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`insert into lk_host.apps (id, name, secret_key_hash, public_token_hash, created_at, updated_at)
                  values ('app_host', 'Host', 'a', 'b', 1, 1)`.execute(trx);
        const inTx = await kyselyStorage({ db: trx, schema: 'lk_host' });
        await inTx.transaction((tx) => tx.apps.insert(dropped));
        expect(await inTx.apps.get(dropped.id)).toEqual(dropped);
        throw hostFailure;
      }),
    ).rejects.toBe(hostFailure);
    expect(await storage.apps.get(dropped.id)).toBeNull();
    expect(await storage.apps.get('app_host')).toBeNull();

    await storage.close();
    // The host's Kysely still works: close() did not destroy it.
    expect(await storage.apps.get(kept.id)).toEqual(kept);
    await db.destroy(); // owned = false: PGlite stays open
    expect(pglite.closed).toBe(false);
  });
});

describe.skipIf(!DATABASE_URL)('a pg Pool the host passes in', () => {
  it('is used as is and left open on close()', async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 3 });
    const schema = randomSchema();
    try {
      const storage = await kyselyStorage({ pool, schema, migrate: true });
      const app = makeApp();
      await storage.apps.insert(app);
      await storage.close();
      const { rows } = await pool.query(`select id from "${schema}".apps`);
      expect(rows).toEqual([{ id: app.id }]);
    } finally {
      await pool.query(`drop schema if exists "${schema}" cascade`);
      await pool.end();
    }
  });
});

describe('a PGlite data directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'latchkey-pglite-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps what was written in a PGlite data directory across close and reopen', async () => {
    const app = makeApp();
    const user = makeUser(app.id);
    const email = makeContact(app.id, user.id);

    const first = await pgliteStorage(dir, { migrate: true, schema: 'auth' });
    await first.transaction(async (tx) => {
      await tx.apps.insert(app);
      await tx.users.insert(user);
      await tx.emails.insert(email);
    });
    await first.close();

    const second = await pgliteStorage(dir, { migrate: true, schema: 'auth' });
    try {
      expect(await second.apps.get(app.id)).toEqual(app);
      expect(await second.users.get(app.id, user.id)).toEqual(user);
      expect(await second.emails.findByAddress(app.id, email.address)).toEqual(email);
    } finally {
      await second.close();
    }
  });

  it('creates a data directory whose parents do not exist yet', async () => {
    const nested = join(dir, 'fresh-project', '.latchkey', 'pglite');
    const storage = await pgliteStorage(nested, { migrate: true });
    try {
      const app = makeApp();
      await storage.apps.insert(app);
      expect(await storage.apps.get(app.id)).toEqual(app);
    } finally {
      await storage.close();
    }
  });
});
