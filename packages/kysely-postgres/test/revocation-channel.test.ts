import { createLatchkey, type Factor, type Latchkey } from '@latchkey/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTEN_APPLICATION_NAME } from '../src/revocations/pg-listen.js';
import {
  databases,
  type SharedDatabase,
  sharedDatabase,
  spiedChannel,
  tcpProxy,
  waitFor,
} from './revocation-helpers.js';
import { DATABASE_URL, randomSchema } from './targets.js';

const SECRET = 'revocation-channel-test-secret-0123456789';
const factor: Factor = {
  type: 'otp',
  delivery_channel: 'email',
  method: {
    method_id: 'email_x',
    method_type: 'email',
    email_id: 'email_x',
    email: 'x@example.com',
    last_verified_at: 0,
  },
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Two Latchkeys on one database, each with a storage of its own (on Postgres, a pool of its
 * own), as two processes would be: A signs in and revokes, B checks in jwt mode. B's channel is
 * spied on, so a test can tell a revocation B heard from one it caught up on.
 */
async function twoProcesses(db: SharedDatabase, options: { urlOfB?: string } = {}) {
  const schema = randomSchema();
  const a = createLatchkey({ storage: await db.open(schema), secret: SECRET });
  const storageB = await db.open(schema, {
    migrate: false,
    ...(options.urlOfB ? { url: options.urlOfB } : {}),
  });
  const spied = spiedChannel(storageB.sessionRevocations!);
  const b: Latchkey = createLatchkey({ storage: storageB, secret: SECRET, revocationChannel: spied.channel });
  const { app } = await a.apps.create({ name: 'Revocations' });
  const appId = app.id;
  const newUser = async () => (await a.users.create(appId, {})).user_id;
  const userId = await newUser();
  const signIn = async (user = userId) => {
    const issued = await a.sessions.issue(appId, user, factor, { session_expires_in: 60 });
    return { id: issued.session!.id, jwt: issued.session_jwt! };
  };
  const checkInB = (jwt: string) => b.sessions.check({ app_id: appId, session_jwt: jwt, mode: 'jwt' });
  /** What B's jwt-mode check says: 'accepted' or the error type. */
  const outcomeInB = (jwt: string) =>
    checkInB(jwt).then(
      () => 'accepted',
      (err: { errorType?: string }) => err.errorType ?? String(err),
    );
  expect(await b.sessions.watchRevocations()).toBe('live');
  return { schema, a, b, appId, userId, newUser, signIn, checkInB, outcomeInB, heardByB: spied.heard };
}

describe.each(databases)('revocations between two Latchkeys on one %s database', (name) => {
  let db: SharedDatabase;
  beforeAll(async () => {
    db = await sharedDatabase(name);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('a session revoked through A is refused by B in jwt mode, well within 1 s', async () => {
    const p = await twoProcesses(db);
    const session = await p.signIn();
    // B has verified the JWT: from now on it answers from the claims and its set alone.
    await p.checkInB(session.jwt);
    expect(p.b.sessions.checkKnownJwt(p.appId, session.jwt)?.session_id).toBe(session.id);
    await p.a.sessions.revoke(p.appId, { session_id: session.id });
    const revokedAt = Date.now();
    await waitFor(async () => (await p.outcomeInB(session.jwt)) === 'session_not_found', 1_000);
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    expect(p.b.sessions.revocationState()).toBe('live');
    expect(p.heardByB.has(session.id)).toBe(true);
    expect(p.b.sessions.checkKnownJwt(p.appId, session.jwt)).toBeUndefined();
  });

  it('a user’s or an App’s row deleted: B refuses their live sessions’ JWTs', async () => {
    const p = await twoProcesses(db);
    const other = await p.newUser();
    const kept = await p.signIn();
    const doomed = [await p.signIn(other), await p.signIn(other)];
    for (const s of [kept, ...doomed]) await p.checkInB(s.jwt);
    // As an operator or the host's own code would, beside Latchkey.
    await db.sql(`delete from "${p.schema}".users where id = $1`, [other]);
    await waitFor(async () => {
      const outcomes = await Promise.all(doomed.map((s) => p.outcomeInB(s.jwt)));
      return outcomes.every((o) => o === 'session_not_found');
    }, 1_000);
    expect(await p.outcomeInB(kept.jwt)).toBe('accepted');

    await db.sql(`delete from "${p.schema}".apps where id = $1`, [p.appId]);
    await waitFor(async () => (await p.outcomeInB(kept.jwt)) !== 'accepted', 1_000);
    expect(p.heardByB.has(kept.id)).toBe(true);
    expect(p.b.sessions.checkKnownJwt(p.appId, kept.jwt)).toBeUndefined();
  });
});

describe.skipIf(!DATABASE_URL)('revocations while B’s channel is down (real Postgres)', () => {
  let db: SharedDatabase;
  beforeAll(async () => {
    db = await sharedDatabase('postgres');
  });
  afterAll(async () => {
    await db?.close();
  });

  it('B’s LISTEN backend terminated: lost, checks read storage and refuse, then live again and caught up', async () => {
    const p = await twoProcesses(db);
    const sessions = await Promise.all(Array.from({ length: 5 }, () => p.signIn()));
    for (const s of sessions) await p.checkInB(s.jwt);
    const channel = await db.channelOf(p.schema);
    // Keeps B's channel down: its LISTEN backend is terminated each time it comes back.
    let holding = true;
    const terminator = (async () => {
      while (holding) {
        await db.sql(
          'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and query = $2',
          [LISTEN_APPLICATION_NAME, `listen "${channel}"`],
        );
        await sleep(5);
      }
    })();
    await waitFor(() => p.b.sessions.revocationState() === 'lost');
    const states: string[] = [];
    for (const s of sessions) {
      await p.a.sessions.revoke(p.appId, { session_id: s.id });
      states.push(p.b.sessions.revocationState());
      // B's set may lack it: B reads the session from storage, and refuses it.
      expect(await p.outcomeInB(s.jwt)).toBe('session_not_found');
    }
    expect(states).toContain('lost');
    holding = false;
    await terminator;
    await waitFor(() => p.b.sessions.revocationState() === 'live');
    for (const s of sessions) {
      // Live: B answers from its set, which now holds every one of them.
      expect(p.b.sessions.checkKnownJwt(p.appId, s.jwt)).toBeUndefined();
      expect(await p.outcomeInB(s.jwt)).toBe('session_not_found');
    }
  });

  it('B cut off from Postgres for 2 s while A revokes 50 sessions: never accepted, all refused once back', async () => {
    const target = new URL(DATABASE_URL!);
    const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(DATABASE_URL!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    try {
      const p = await twoProcesses(db, { urlOfB: viaProxy.toString() });
      const sessions = await Promise.all(Array.from({ length: 50 }, () => p.signIn()));
      for (const s of sessions) await p.checkInB(s.jwt);
      proxy.cut();
      const cutAt = Date.now();
      await waitFor(() => p.b.sessions.revocationState() === 'lost');
      const outcomes: string[] = [];
      for (const s of sessions) {
        await p.a.sessions.revoke(p.appId, { session_id: s.id });
        outcomes.push(await p.outcomeInB(s.jwt));
      }
      while (Date.now() - cutAt < 2_000) {
        outcomes.push(await p.outcomeInB(sessions[outcomes.length % 50]!.jwt));
        await sleep(50);
      }
      await proxy.restore();
      await waitFor(async () => {
        outcomes.push(await p.outcomeInB(sessions[0]!.jwt));
        return p.b.sessions.revocationState() === 'live';
      }, 20_000);
      expect(outcomes).not.toContain('accepted');
      // Cut off, B could not read the session either: a 503, never a yes.
      expect(outcomes).toContain('storage_unavailable');
      expect(outcomes.filter((o) => o !== 'storage_unavailable' && o !== 'session_not_found')).toEqual([]);
      for (const s of sessions) {
        expect(p.b.sessions.checkKnownJwt(p.appId, s.jwt)).toBeUndefined();
        expect(await p.outcomeInB(s.jwt)).toBe('session_not_found');
      }
      // None came by the channel (B was cut off when they were made): B caught up from storage.
      expect(sessions.filter((s) => p.heardByB.has(s.id))).toEqual([]);
    } finally {
      proxy.close();
    }
  });
});
