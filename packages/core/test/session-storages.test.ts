import { randomBytes } from 'node:crypto';
import { kyselyStorage, pgliteStorage } from '@latchkey/kysely-postgres';
import { memoryStorage } from '@latchkey/memory';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey, type Latchkey, type OutboundMessage, type Storage } from '../src/index.js';
import { manualClock, TEST_SECRET } from './helpers.js';

const DATABASE_URL = process.env.DATABASE_URL;

interface Backend {
  name: string;
  open(): Promise<{ storage: Storage; dispose(): Promise<void> }>;
}

const backends: Backend[] = [
  { name: 'memory', open: async () => ({ storage: memoryStorage(), dispose: async () => {} }) },
  {
    name: 'pglite',
    async open() {
      const storage = await pgliteStorage(undefined, { migrate: true });
      return { storage, dispose: () => storage.close() };
    },
  },
];
if (DATABASE_URL) {
  backends.push({
    name: 'postgres',
    async open() {
      const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
      pool.on('error', () => {});
      const schema = `latchkey_sessions_${randomBytes(6).toString('hex')}`;
      const storage = await kyselyStorage({ pool, schema, migrate: true });
      return {
        storage,
        async dispose() {
          await storage.close();
          await pool.query(`drop schema if exists "${schema}" cascade`);
          await pool.end();
        },
      };
    },
  });
}

describe.each(backends)('sessions on $name', (backend) => {
  let latchkey: Latchkey;
  let appId: string;
  let dispose: () => Promise<void>;
  const sent: OutboundMessage[] = [];
  const clock = manualClock();

  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    latchkey = createLatchkey({
      storage: opened.storage,
      secret: TEST_SECRET,
      clock,
      sender: { send: async (m) => void sent.push(m) },
    });
    appId = (
      await latchkey.apps.create({
        name: 'Sessions',
        settings: { rate_limits: { per_destination: { limit: 10_000 }, per_app: { limit: 100_000 } } },
      })
    ).app_id;
  });
  afterAll(async () => {
    await dispose?.();
  });

  const signIn = async (email: string, session: Record<string, unknown>) => {
    const { method_id } = await latchkey.otps.loginOrCreate(appId, 'email', { address: email });
    const otp = sent.filter((m) => m.to === email).at(-1)!.code!;
    return latchkey.otps.verify(appId, { method_id, otp, ...session });
  };

  // Issue 14.3: each sign-in used to append a factor, and the JWT carries them all.
  it('after 1,000 sign-ins on one session the JWT stays under 2 KB and the API still takes it', async () => {
    const email = 'many@example.com';
    const first = await signIn(email, { session_expires_in: 600 });
    let jwt = first.session_jwt as string;
    for (let i = 0; i < 1000; i++) {
      clock.advance(1);
      const again = await signIn(email, { session_token: first.session_token });
      jwt = again.session_jwt as string;
    }
    expect(jwt.length).toBeLessThan(2048);
    const stored = await latchkey.storage.sessions.get(appId, first.session!.id);
    expect(stored!.factors).toHaveLength(1);
    expect(stored!.factors[0]!.method.last_verified_at).toBe(Math.floor(clock.now() / 1000));
    const byApi = await latchkey.sessions.authenticate(appId, { session_jwt: jwt });
    expect(byApi.session.id).toBe(first.session!.id);
    const revoked = await latchkey.sessions.revoke(appId, { session_jwt: jwt });
    expect(revoked.session_id).toBe(first.session!.id);
  }, 120_000);

  // Issue 14.8: a JWT lives minutes, its session up to a year; the JWT alone must still log out.
  it('a JWT whose exp has passed still revokes its own session, and only that', async () => {
    const first = await signIn('expired@example.com', { session_expires_in: 60 * 24 });
    const jwt = first.session_jwt as string;
    clock.advance(3600);
    await expect(latchkey.sessions.authenticate(appId, { session_jwt: jwt })).rejects.toMatchObject({
      errorType: 'invalid_session_jwt',
    });
    await expect(latchkey.sessions.check({ app_id: appId, session_jwt: jwt })).rejects.toMatchObject({
      errorType: 'invalid_session_jwt',
    });
    // Still live by token, until the expired JWT revokes it.
    await latchkey.sessions.authenticate(appId, { session_token: first.session_token });
    const revoked = await latchkey.sessions.revoke(appId, { session_jwt: jwt });
    expect(revoked).toMatchObject({ session_id: first.session!.id });
    await expect(
      latchkey.sessions.authenticate(appId, { session_token: first.session_token }),
    ).rejects.toMatchObject({ errorType: 'session_not_found' });
    await expect(latchkey.sessions.revoke(appId, { session_jwt: jwt })).rejects.toMatchObject({
      errorType: 'session_not_found',
    });
    // The signature is still checked: a tampered expired JWT revokes nothing.
    const other = await signIn('other@example.com', { session_expires_in: 60 });
    clock.advance(3600);
    const [h, p] = (other.session_jwt as string).split('.');
    await expect(latchkey.sessions.revoke(appId, { session_jwt: `${h}.${p}.AAAA` })).rejects.toMatchObject({
      errorType: 'invalid_session_jwt',
    });
  });
});
