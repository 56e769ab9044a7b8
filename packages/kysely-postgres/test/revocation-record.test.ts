import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { Storage } from '@latchkey/core';
import { makeApp, makeSession, makeUser } from '@latchkey/storage-conformance';
import { Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kyselyStorage } from '../src/index.js';
import { pgliteDialect } from '../src/pglite-dialect.js';
import { LISTEN_APPLICATION_NAME, pgListen } from '../src/revocations/pg-listen.js';
import {
  databases,
  recordingListener,
  type SharedDatabase,
  sharedDatabase,
  tcpProxy,
  waitFor,
} from './revocation-helpers.js';
import { DATABASE_URL, randomSchema } from './targets.js';

const clock = () => Math.floor(Date.now() / 1000);

describe.each(databases)('the record of revocations on %s', (name) => {
  let db: SharedDatabase;
  let schema: string;
  let storage: Storage;
  beforeAll(async () => {
    db = await sharedDatabase(name);
    schema = randomSchema();
    storage = await db.open(schema);
  });
  afterAll(async () => {
    await db?.close();
  });

  const appWithUser = async () => {
    const app = makeApp();
    const user = makeUser(app.id);
    await storage.apps.insert(app);
    await storage.users.insert(user);
    return { app, user };
  };
  const revokedSince = (since: number, appId?: string) => storage.sessions.revokedSince!(since, appId);

  it('records a live session deleted with its user or its App, at the database’s time, and no expired one', async () => {
    const { app, user } = await appWithUser();
    const now = clock();
    const live = makeSession(app.id, user.id, { expires_at: now + 3600 });
    const expired = makeSession(app.id, user.id, { expires_at: now - 10 });
    const revoked = makeSession(app.id, user.id, { expires_at: now + 3600 });
    for (const s of [live, expired, revoked]) await storage.sessions.insert(s);
    await storage.sessions.revoke(app.id, revoked.id, now - 5);
    const { listener, heard } = recordingListener();
    const subscription = await storage.sessionRevocations!.subscribe(listener);
    // As a host or an operator would: the row goes, and its sessions with it.
    await db.sql(`delete from "${schema}".users where id = $1`, [user.id]);
    // Announced once: the revoked one was when it was revoked.
    await waitFor(() => heard.length > 0);
    expect(heard.map((r) => r.session_id)).toEqual([live.id]);
    await subscription.close();
    const found = await revokedSince(now - 60, app.id);
    expect(found.map((r) => r.session_id)).toEqual([revoked.id, live.id]);
    expect(found[0]!.revoked_at).toBe(now - 5);
    expect(found[1]!.revoked_at).toBeGreaterThanOrEqual(now);
    expect(found[1]!.revoked_at).toBeLessThanOrEqual(clock());

    const other = await appWithUser();
    const inApp = makeSession(other.app.id, other.user.id, { expires_at: now + 3600 });
    await storage.sessions.insert(inApp);
    await db.sql(`delete from "${schema}".apps where id = $1`, [other.app.id]);
    // No key to apps: a deleted App's sessions stay refused.
    expect((await revokedSince(now - 60, other.app.id)).map((r) => r.session_id)).toEqual([inApp.id]);
  });

  it('forgets a revocation once one 3,661 s younger is written, and not before', async () => {
    const { app, user } = await appWithUser();
    // Later than any other case here writes, so they prune nothing of this one.
    const t = clock() + 1_000_000;
    const [first, second, third] = [0, 1, 2].map(() =>
      makeSession(app.id, user.id, { expires_at: t + 9999 }),
    );
    for (const s of [first!, second!, third!]) await storage.sessions.insert(s);
    await storage.sessions.revoke(app.id, first!.id, t);
    await storage.sessions.revoke(app.id, second!.id, t + 3660);
    expect((await revokedSince(0, app.id)).map((r) => r.session_id)).toEqual([first!.id, second!.id]);
    await storage.sessions.revoke(app.id, third!.id, t + 3661);
    expect((await revokedSince(0, app.id)).map((r) => r.session_id)).toEqual([second!.id, third!.id]);
  });

  it('announces each revocation on the storage’s channel, and ignores payloads it cannot read', async () => {
    const { app, user } = await appWithUser();
    const [a, b] = [makeSession(app.id, user.id), makeSession(app.id, user.id)];
    await storage.sessions.insert(a!);
    await storage.sessions.insert(b!);
    const { listener, heard } = recordingListener();
    const subscription = await storage.sessionRevocations!.subscribe(listener);
    const at = clock();
    await storage.sessions.revoke(app.id, a!.id, at);
    await waitFor(() => heard.length === 1);
    expect(heard).toEqual([{ app_id: app.id, session_id: a!.id, revoked_at: at }]);
    const channel = await db.channelOf(schema);
    for (const junk of [
      'not json',
      '',
      '{"a":1}',
      '["a","b"]',
      '["a","b",1.5]',
      '[1,"b",2]',
      '["a",2,3]',
      '["a","b","3"]',
    ])
      await db.sql('select pg_notify($1, $2)', [channel, junk]);
    // A field a later version may append is ignored: a process not yet upgraded still hears.
    await db.sql('select pg_notify($1, $2)', [
      channel,
      JSON.stringify([app.id, 'session_appended', at, 'x']),
    ]);
    await storage.sessions.revoke(app.id, b!.id, clock());
    await waitFor(() => heard.length >= 3);
    expect(heard.map((r) => r.session_id)).toEqual([a!.id, 'session_appended', b!.id]);
    await subscription.close();
  });

  it('tells every subscriber, whatever another one throws', async () => {
    const { app, user } = await appWithUser();
    const session = makeSession(app.id, user.id);
    await storage.sessions.insert(session);
    const throwing = recordingListener();
    const fine = recordingListener();
    const subscriptions = [
      await storage.sessionRevocations!.subscribe({
        ...throwing.listener,
        revoked() {
          throw new Error('a subscriber’s bug');
        },
      }),
      await storage.sessionRevocations!.subscribe(fine.listener),
    ];
    await storage.sessions.revoke(app.id, session.id, clock());
    await waitFor(() => fine.heard.length === 1);
    for (const s of subscriptions) await s.close();
  });

  it('keeps two schemas on one database apart, whatever their names', async () => {
    const elsewhere = await db.open(`Odd "Name" ${randomSchema()}`);
    const app = makeApp();
    const user = makeUser(app.id);
    await elsewhere.apps.insert(app);
    await elsewhere.users.insert(user);
    const session = makeSession(app.id, user.id);
    await elsewhere.sessions.insert(session);
    const here = recordingListener();
    const there = recordingListener();
    const subscriptions = [
      await storage.sessionRevocations!.subscribe(here.listener),
      await elsewhere.sessionRevocations!.subscribe(there.listener),
    ];
    await elsewhere.sessions.revoke(app.id, session.id, clock());
    await waitFor(() => there.heard.length === 1);
    // A revocation here after it: once heard here, the other one would have been too.
    const mine = await appWithUser();
    const marker = makeSession(mine.app.id, mine.user.id);
    await storage.sessions.insert(marker);
    await storage.sessions.revoke(mine.app.id, marker.id, clock());
    await waitFor(() => here.heard.length === 1);
    expect(here.heard.map((r) => r.session_id)).toEqual([marker.id]);
    expect(there.heard.map((r) => r.session_id)).toEqual([session.id]);
    for (const s of subscriptions) await s.close();
  });

  it('refuses to subscribe on a schema the migrations have not reached, and listens once they have', async () => {
    const unmigrated = randomSchema();
    const bare = await db.open(unmigrated, { migrate: false });
    expect(bare.sessionRevocations).toBeDefined();
    await expect(bare.sessionRevocations!.subscribe(recordingListener().listener)).rejects.toThrow(
      /run the migrations/,
    );
    // A failed start is not kept: once migrated, the same storage listens.
    await db.migrate(unmigrated);
    await (await bare.sessionRevocations!.subscribe(recordingListener().listener)).close();
  });

  it('refuses subscribers once the storage is closed, the one subscribing as it closed too', async () => {
    const closing = await db.open(randomSchema());
    const subscribing = closing.sessionRevocations!.subscribe(recordingListener().listener).then(
      () => 'subscribed',
      (err: Error) => err.message,
    );
    await closing.close();
    expect(await subscribing).toMatch(/closed/);
    await expect(closing.sessionRevocations!.subscribe(recordingListener().listener)).rejects.toThrow(
      /closed/,
    );
  });

  it.runIf(name === 'pglite')(
    'LISTENs on PGlite between transactions only: a rollback cannot undo it',
    async () => {
      const { app, user } = await appWithUser();
      const session = makeSession(app.id, user.id);
      await storage.sessions.insert(session);
      // The channel is asked for once and kept: the next subscribe goes straight to its LISTEN.
      await (await storage.sessionRevocations!.subscribe(recordingListener().listener)).close();
      let rollBack!: () => void;
      const held = new Promise<void>((resolve) => {
        rollBack = resolve;
      });
      let began!: () => void;
      const begun = new Promise<void>((resolve) => {
        began = resolve;
      });
      const transaction = storage
        .transaction(async (tx) => {
          await tx.apps.get(app.id);
          began();
          await held;
          throw new Error('rolled back');
        })
        .catch(() => {});
      await begun;
      const { listener, heard } = recordingListener();
      const subscribing = storage.sessionRevocations!.subscribe(listener);
      // Time for a LISTEN that did not wait to run inside the transaction.
      await new Promise((resolve) => setTimeout(resolve, 50));
      rollBack();
      await transaction;
      const subscription = await subscribing;
      await storage.sessions.revoke(app.id, session.id, clock());
      await waitFor(() => heard.length === 1, 2_000);
      await subscription.close();
    },
  );

  it.runIf(name === 'pglite')('closes cleanly when the host closed its PGlite first', async () => {
    const pglite = await PGlite.create();
    const own = await kyselyStorage({ pglite, migrate: true });
    await own.sessionRevocations!.subscribe(recordingListener().listener);
    await pglite.close();
    await expect(own.close()).resolves.toBeUndefined();
  });
});

describe('a storage on a host’s Kysely', () => {
  it('keeps the record but has no channel: it cannot see a connection to listen on', async () => {
    const pglite = await PGlite.create();
    const kysely = new Kysely({ dialect: pgliteDialect(pglite, true) });
    const storage = await kyselyStorage({ db: kysely, migrate: true });
    expect(storage.sessionRevocations).toBeUndefined();
    expect(await storage.sessions.revokedSince!(0)).toEqual([]);
    await storage.close();
    await kysely.destroy();
  });
});

describe('the LISTEN connection to real Postgres', () => {
  it('rejects when it cannot connect, and leaves nothing running', async () => {
    const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none' });
    const { listener } = recordingListener();
    await expect(
      pgListen(pool)('latchkey_x', { message: () => {}, lost: listener.lost, restored: listener.restored }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await pool.end();
  });
});

describe.skipIf(!DATABASE_URL)('the LISTEN connection to real Postgres, shared', () => {
  let db: SharedDatabase;
  beforeAll(async () => {
    db = await sharedDatabase('postgres');
  });
  afterAll(async () => {
    await db?.close();
  });

  const listeningBackends = async (channel: string) =>
    (
      await db.sql<{ pid: number }>(
        `select pid from pg_stat_activity where application_name = $1 and query = $2 and state = 'idle'`,
        [LISTEN_APPLICATION_NAME, `listen "${channel}"`],
      )
    ).map((r) => r.pid);

  it('is one for all subscribers, opened by the first, closed with the last and by close()', async () => {
    const schema = randomSchema();
    const storage = await db.open(schema);
    const channel = await db.channelOf(schema);
    expect(await listeningBackends(channel)).toEqual([]);
    const first = await storage.sessionRevocations!.subscribe(recordingListener().listener);
    const second = await storage.sessionRevocations!.subscribe(recordingListener().listener);
    expect(await listeningBackends(channel)).toHaveLength(1);
    await first.close();
    expect(await listeningBackends(channel)).toHaveLength(1);
    await second.close();
    await waitFor(async () => (await listeningBackends(channel)).length === 0);
    await storage.sessionRevocations!.subscribe(recordingListener().listener);
    expect(await listeningBackends(channel)).toHaveLength(1);
    await storage.close();
    await waitFor(async () => (await listeningBackends(channel)).length === 0);
  });

  it('tells lost once when its backend is terminated, reconnects by itself and tells restored', async () => {
    const schema = randomSchema();
    const storage = await db.open(schema);
    const channel = await db.channelOf(schema);
    const { listener, events, heard } = recordingListener();
    await storage.sessionRevocations!.subscribe(listener);
    const [pid] = await listeningBackends(channel);
    await db.sql('select pg_terminate_backend($1)', [pid]);
    await waitFor(() => events.includes('restored'));
    expect(events).toEqual(['lost', 'restored']);
    const [again] = await listeningBackends(channel);
    expect(again).not.toBe(pid);
    // Listening again: a revocation is heard.
    const app = makeApp();
    const user = makeUser(app.id);
    await storage.apps.insert(app);
    await storage.users.insert(user);
    const session = makeSession(app.id, user.id);
    await storage.sessions.insert(session);
    await storage.sessions.revoke(app.id, session.id, clock());
    await waitFor(() => heard.length === 1);
  });

  it('refuses a subscriber while the connection is down, and takes it once it is back', async () => {
    const target = new URL(DATABASE_URL!);
    const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(DATABASE_URL!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    try {
      const storage = await db.open(randomSchema(), { url: viaProxy.toString() });
      const first = recordingListener();
      await storage.sessionRevocations!.subscribe(first.listener);
      proxy.cut();
      await waitFor(() => first.events.includes('lost'));
      await expect(storage.sessionRevocations!.subscribe(recordingListener().listener)).rejects.toThrow();
      await proxy.restore();
      await waitFor(() => first.events.at(-1) === 'restored');
      await storage.sessionRevocations!.subscribe(recordingListener().listener);
    } finally {
      proxy.close();
    }
  });

  it('prunes past rows another transaction holds, without waiting for it', async () => {
    const schema = randomSchema();
    const storage = await db.open(schema);
    const app = makeApp();
    const user = makeUser(app.id);
    await storage.apps.insert(app);
    await storage.users.insert(user);
    const t = clock();
    const [old, young] = [makeSession(app.id, user.id), makeSession(app.id, user.id)];
    await storage.sessions.insert(old!);
    await storage.sessions.insert(young!);
    await storage.sessions.revoke(app.id, old!.id, t - 4000);
    const holder = new pg.Client({ connectionString: DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`select * from "${schema}".session_revocations where session_id = $1 for update`, [
        old!.id,
      ]);
      const revoking = storage.sessions.revoke(app.id, young!.id, t).then(() => 'revoked');
      const waited = new Promise((resolve) =>
        setTimeout(() => resolve('waiting on the lock'), 3_000).unref(),
      );
      expect(await Promise.race([revoking, waited])).toBe('revoked');
      await holder.query('rollback');
    } finally {
      await holder.end();
    }
    // Skipped, not lost: the next revocation prunes it.
    expect((await storage.sessions.revokedSince!(0, app.id)).map((r) => r.session_id)).toEqual([
      old!.id,
      young!.id,
    ]);
  });

  it('never keeps the process alive once the storage is closed, even while reconnecting', async () => {
    const schema = randomSchema();
    await db.open(schema);
    const child = spawn(
      process.execPath,
      [
        '--conditions=source',
        '--import',
        'tsx',
        fileURLToPath(new URL('./fixtures/listen-then-close.ts', import.meta.url)),
      ],
      { env: { ...process.env, SCHEMA: schema }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const hung = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 15_000).unref());
    const result = await Promise.race([exited, hung]);
    if (result === 'hung') child.kill('SIGKILL');
    expect(out.trim().split('\n')).toEqual(['lost', 'closed']);
    expect(result).toBe(0);
  }, 30_000);
});
