import { createServer, type Server, type Socket } from 'node:net';
import { LatchkeyError, type Storage } from '@latchkey/core';
import { makeApp, uid } from '@latchkey/storage-conformance';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { kyselyStorage, migrateToLatest, postgresStorage } from '../src/index.js';
import { isConnectionError, toStorageError } from '../src/storage-errors.js';
import { DATABASE_URL, randomSchema } from './targets.js';

const unavailable = { name: 'LatchkeyError', errorType: 'storage_unavailable', status: 503 };

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A TCP server on a free loopback port that treats each connection with `onSocket`. */
async function fakeServer(onSocket: (socket: Socket) => void): Promise<{ url: string; server: Server }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  server.on('close', () => {
    for (const s of sockets) s.destroy();
  });
  return { url: `postgres://postgres@127.0.0.1:${port}/test`, server };
}

describe('storage_unavailable without a reachable database', () => {
  const opened: Storage[] = [];
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    for (const s of servers.splice(0)) s.close();
  });

  it('maps a refused connection, on every method and on transaction()', async () => {
    const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/test' });
    const storage = await kyselyStorage({ pool });
    opened.push(storage);
    const err = await storage.apps.get('app_x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LatchkeyError);
    expect(err).toMatchObject(unavailable);
    expect(JSON.stringify((err as LatchkeyError).cause, ['code'])).toContain('ECONNREFUSED');
    await expect(storage.emails.findByAddress('app_x', 'a@example.com')).rejects.toMatchObject(unavailable);
    await expect(storage.transaction(async () => 'never')).rejects.toMatchObject(unavailable);
    await pool.end();
  });

  it('fails migrate-at-start-up and migrateToLatest with storage_unavailable', async () => {
    const url = 'postgres://postgres@127.0.0.1:1/test';
    await expect(postgresStorage(url, { migrate: true })).rejects.toMatchObject(unavailable);
    const pool = new pg.Pool({ connectionString: url });
    await expect(migrateToLatest({ pool })).rejects.toMatchObject(unavailable);
    await pool.end();
  });

  it('maps a server that never answers, after the pool connect timeout', async () => {
    const { url, server } = await fakeServer(() => {});
    servers.push(server);
    const storage = await postgresStorage(url, { pool: { connectionTimeoutMillis: 200 } });
    opened.push(storage);
    const started = Date.now();
    await expect(storage.users.get('app_x', 'user_x')).rejects.toMatchObject(unavailable);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('maps a connection the server drops', async () => {
    const { url, server } = await fakeServer((socket) => socket.destroy());
    servers.push(server);
    const storage = await postgresStorage(url);
    opened.push(storage);
    await expect(storage.apps.list()).rejects.toMatchObject(unavailable);
  });

  it('leaves errors of the query itself alone', () => {
    const unique = Object.assign(new Error('duplicate key value violates unique constraint'), {
      code: '23505',
    });
    const missing = Object.assign(new Error('relation "apps" does not exist'), { code: '42P01' });
    const own = new LatchkeyError('invalid_field');
    for (const err of [unique, missing, own, new TypeError('x'), 'text'])
      expect(toStorageError(err)).toBe(err);
  });

  it('recognises the ways a connection fails', () => {
    const failures = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      new AggregateError([Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })]),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      new Error('timeout exceeded when trying to connect'),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('crash shutdown'), { code: '57P02' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      new Error('wrapped', { cause: Object.assign(new Error('x'), { code: '08001' }) }),
    ];
    for (const err of failures) {
      expect(isConnectionError(err), String(err)).toBe(true);
      expect(toStorageError(err)).toMatchObject({ ...unavailable, cause: err });
    }
  });
});

describe.skipIf(!DATABASE_URL)('storage_unavailable on postgres', () => {
  const schema = randomSchema();
  const applicationName = uid('latchkey_terminate');
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  let storage: Storage | undefined;

  afterAll(async () => {
    await storage?.close();
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  });

  /** Terminates every backend of the Storage's pool and waits until they are gone. */
  async function terminateBackends(): Promise<number> {
    const rows = await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
      [applicationName],
    );
    await waitFor(async () => {
      const left = await admin.query('select 1 from pg_stat_activity where application_name = $1', [
        applicationName,
      ]);
      return left.rowCount === 0;
    });
    // Let the pool's sockets see the close before the next call.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return rows.rowCount ?? 0;
  }

  it('maps backends terminated mid-use, and the same Storage works again afterwards', async () => {
    await admin.connect();
    storage = await postgresStorage(DATABASE_URL!, {
      schema,
      migrate: true,
      pool: { max: 4, application_name: applicationName },
    });
    const s = storage;
    const app = makeApp();
    await s.apps.insert(app);
    // Four idle clients in the pool, all about to be killed.
    await Promise.all(Array.from({ length: 4 }, () => s.apps.get(app.id)));

    // Mid-transaction: the connection is checked out, between two statements, when it dies.
    const mid = await s
      .transaction(async (tx) => {
        await tx.apps.update(app.id, { name: 'written before' });
        expect(await terminateBackends()).toBeGreaterThanOrEqual(4);
        await tx.apps.get(app.id);
      })
      .catch((e: unknown) => e);
    expect(mid).toBeInstanceOf(LatchkeyError);
    expect(mid).toMatchObject(unavailable);

    // No new Storage: the pool dropped its dead clients and connects afresh.
    expect(await s.apps.get(app.id)).toEqual(app);
    const other = makeApp();
    await s.apps.insert(other);
    expect(await s.apps.get(other.id)).toEqual(other);

    // Mid-statement: an update waiting on a row lock that another session holds.
    const locker = new pg.Client({ connectionString: DATABASE_URL });
    await locker.connect();
    await locker.query('begin');
    await locker.query(`select * from "${schema}".apps where id = $1 for update`, [app.id]);
    const blocked = s.apps.update(app.id, { name: 'blocked' }).catch((e: unknown) => e);
    await waitFor(async () => {
      const rows = await admin.query(
        `select 1 from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'`,
        [applicationName],
      );
      return rows.rowCount === 1;
    });
    await terminateBackends();
    await locker.query('rollback');
    await locker.end();
    const failed = await blocked;
    expect(failed).toMatchObject(unavailable);
    expect((failed as LatchkeyError).cause).toMatchObject({ code: '57P01' });

    expect(await s.apps.update(app.id, { name: 'after' })).toMatchObject({ name: 'after' });
    const rows = await admin.query(`select name from "${schema}".apps where id = $1`, [app.id]);
    expect(rows.rows).toEqual([{ name: 'after' }]);
  });
});
