import { createLatchkey, type SessionRecord, type Storage } from '@latchkey/core';
import { makeApp, makeSession, makeUser } from '@latchkey/storage-conformance';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kyselyStorage } from '../src/index.js';
import { DATABASE_URL, randomSchema } from './targets.js';

/**
 * On a pg Pool, session reads that arrive while one is in flight go together as one statement:
 * each caller must still get exactly its own row (its App's, never another's), and a read that
 * starts after a revoke committed must see it.
 */
describe.skipIf(!DATABASE_URL)('grouped session reads on a pg Pool', () => {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
  const schema = randomSchema();
  // Statements sent by text: shows the reads really went grouped.
  const sent: string[] = [];
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => {
    const first = args[0] as { text?: string } | string;
    sent.push(typeof first === 'string' ? first : (first.text ?? ''));
    return query(...args);
  }) as typeof pool.query;
  const grouped = () => sent.filter((text) => text.includes('unnest(')).length;

  let storage: Storage;
  beforeAll(async () => {
    storage = await kyselyStorage({ pool, schema, migrate: true });
  });
  afterAll(async () => {
    await storage?.close();
    await pool.query(`drop schema if exists "${schema}" cascade`);
    await pool.end();
  });

  async function sessionsOf(count: number, over: (i: number) => Partial<SessionRecord> = () => ({})) {
    const app = makeApp();
    const user = makeUser(app.id);
    await storage.apps.insert(app);
    await storage.users.insert(user);
    const sessions = Array.from({ length: count }, (_, i) => makeSession(app.id, user.id, over(i)));
    for (const s of sessions) await storage.sessions.insert(s);
    return { app, sessions };
  }

  it('answer each caller with its own row, within its own App, when many read at once', async () => {
    // Two Apps whose sessions share token hashes: only the App tells them apart.
    const a = await sessionsOf(20, (i) => ({ token_hash: `shared_hash_${i}` }));
    const b = await sessionsOf(20, (i) => ({ token_hash: `shared_hash_${i}` }));
    const before = grouped();
    const reads: Array<{ expected: SessionRecord | null; got: Promise<SessionRecord | null> }> = [];
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 20; i++) {
        for (const [mine, other] of [
          [a, b],
          [b, a],
        ] as const) {
          const own = mine.sessions[i]!;
          reads.push({ expected: own, got: storage.sessions.findByTokenHash(mine.app.id, own.token_hash) });
          reads.push({ expected: own, got: storage.sessions.get(mine.app.id, own.id) });
          // The other App's session id, asked under this App: nothing.
          reads.push({ expected: null, got: storage.sessions.get(mine.app.id, other.sessions[i]!.id) });
          reads.push({ expected: null, got: storage.sessions.findByTokenHash(mine.app.id, `missing_${i}`) });
        }
      }
    }
    for (const read of reads) expect(await read.got).toEqual(read.expected);
    expect(grouped() - before).toBeGreaterThan(0);
  });

  it('give callers of the same session records of their own', async () => {
    // A `__proto__` key, as JSON.parse makes it: an own key, which a copy must keep as one.
    const fingerprint = JSON.parse('{"user_agent":"UA","ip":"203.0.113.9","extra":{"__proto__":{"a":1}}}');
    const { app, sessions } = await sessionsOf(1, () => ({ device_fingerprint: fingerprint }));
    const session = sessions[0]!;
    const records = await Promise.all(
      Array.from({ length: 10 }, () => storage.sessions.findByTokenHash(app.id, session.token_hash)),
    );
    expect(grouped()).toBeGreaterThan(0);
    for (const record of records) expect(record).toEqual(session);
    records[1]!.factors.length = 0;
    (records[1]!.device_fingerprint as Record<string, unknown>).ip = 'changed';
    expect(records[2]!.factors).toEqual(session.factors);
    expect(records[2]!.device_fingerprint).toEqual(session.device_fingerprint);
    for (const record of records) {
      const extra = (record!.device_fingerprint as unknown as { extra: object }).extra;
      expect(Object.hasOwn(extra, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    }
    expect(new Set(records).size).toBe(records.length);
  });

  it('see a revoke committed before the read started, while reads of that session stay in flight', async () => {
    const { app, sessions } = await sessionsOf(30);
    let stop = false;
    let current = sessions[0]!;
    // Readers of the session being revoked, keeping reads of it in flight the whole time.
    const readers = Array.from({ length: 20 }, async () => {
      while (!stop) {
        await storage.sessions.findByTokenHash(app.id, current.token_hash);
        await storage.sessions.get(app.id, current.id);
      }
    });
    const before = grouped();
    for (const [i, s] of sessions.entries()) {
      current = s;
      await new Promise((resolve) => setTimeout(resolve, 2));
      await storage.sessions.revoke(app.id, s.id, s.started_at + 1 + i);
      const [byHash, byId] = await Promise.all([
        storage.sessions.findByTokenHash(app.id, s.token_hash),
        storage.sessions.get(app.id, s.id),
      ]);
      expect(byHash?.revoked_at).toBe(s.started_at + 1 + i);
      expect(byId?.revoked_at).toBe(s.started_at + 1 + i);
    }
    stop = true;
    await Promise.all(readers);
    expect(grouped() - before).toBeGreaterThan(0);
  });

  it('refuse a check that starts after the revoke, with checks of the session in flight', async () => {
    const latchkey = createLatchkey({ storage, secret: 'grouped-reads-test-secret-0123456789abcdef' });
    const { app_id } = await latchkey.apps.create({ name: 'Grouped reads' });
    const { user_id } = await latchkey.users.create(app_id, { email: 'grouped@example.com' });
    const factor = {
      type: 'otp',
      delivery_channel: 'email',
      method: {
        method_id: 'email_grouped',
        method_type: 'email',
        email_id: 'email_grouped',
        email: 'grouped@example.com',
        last_verified_at: 0,
      },
    } as const;
    for (let n = 0; n < 10; n++) {
      const issued = await latchkey.sessions.issue(app_id, user_id, factor, { session_expires_in: 600 });
      const token = issued.session_token as string;
      const check = () => latchkey.sessions.check({ app_id, session_token: token, mode: 'token' });
      let revoked = false;
      const outcomes: string[] = [];
      const inFlight = Array.from({ length: 20 }, async () => {
        while (!revoked) {
          outcomes.push(
            await check().then(
              () => 'ok',
              (err: { errorType?: string }) => err.errorType ?? 'other',
            ),
          );
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await latchkey.sessions.revoke(app_id, { session_token: token });
      revoked = true;
      await expect(check()).rejects.toMatchObject({ errorType: 'session_not_found' });
      // Checks that were already running may pass or be refused, nothing else.
      await Promise.all(inFlight);
      expect(outcomes).toContain('ok');
      expect(outcomes.filter((o) => o !== 'ok' && o !== 'session_not_found')).toEqual([]);
    }
  });
});
