import { memoryStorage } from '@latchkey/memory';
import { describe, expect, it } from 'vitest';
import {
  createLatchkey,
  type Factor,
  type Latchkey,
  type RevocationChannel,
  type RevocationListener,
  type SessionRevocation,
} from '../src/index.js';
import { countingStorage, expectErrorShape, manualClock, TEST_SECRET, testApp } from './helpers.js';

const factor: Factor = {
  type: 'otp',
  delivery_channel: 'email',
  method: {
    method_id: 'email_r',
    method_type: 'email',
    email_id: 'email_r',
    email: 'r@example.com',
    last_verified_at: 0,
  },
};

/** A channel the test drives: it delivers only what the test hands it, and breaks on demand. */
function drivenChannel() {
  const listeners = new Set<RevocationListener>();
  const channel: RevocationChannel = {
    async subscribe(listener) {
      listeners.add(listener);
      return { close: async () => void listeners.delete(listener) };
    },
  };
  return {
    channel,
    listeners: () => listeners.size,
    deliver: (r: SessionRevocation[]) => {
      for (const l of listeners) l.revoked(r);
    },
    lose: () => {
      for (const l of listeners) l.lost(new Error('connection reset'));
    },
    restore: () => {
      for (const l of listeners) l.restored();
    },
  };
}

async function until(condition: () => boolean, what: string) {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

const quiet = { info() {}, warn() {}, error() {} };

/** Two Latchkeys on one storage, as two processes on one database; B hears only `driven`. */
async function twoProcesses() {
  const clock = manualClock(Date.now());
  const shared = memoryStorage();
  const a = createLatchkey({ storage: shared, secret: TEST_SECRET, clock });
  const driven = drivenChannel();
  const counted = countingStorage(shared);
  const b = createLatchkey({
    logger: quiet,
    storage: counted.storage,
    secret: TEST_SECRET,
    clock,
    revocationChannel: driven.channel,
  });
  const { app } = await a.apps.create({ name: 'Revocations' });
  const user = await a.users.create(app.id, { email: 'r@example.com' });
  const session = async ({ seenByB = true } = {}) => {
    const issued = await a.sessions.issue(app.id, user.user_id, factor, { session_expires_in: 600 });
    const jwt = issued.session_jwt as string;
    // B verifies it first, as a host does on the session's first request.
    if (seenByB) await b.sessions.check({ app_id: app.id, session_jwt: jwt, mode: 'jwt' });
    return { id: issued.session!.id, jwt };
  };
  const bAccepts = async (jwt: string) => {
    try {
      await b.sessions.check({ app_id: app.id, session_jwt: jwt, mode: 'jwt' });
      return true;
    } catch (err) {
      expect(err).toMatchObject({ errorType: 'session_not_found', status: 401 });
      return false;
    }
  };
  const health = async (latchkey: Latchkey) =>
    (await (await latchkey.fetch(new Request('http://l.test/v1/health'))).json()).session_revocations;
  return { a, b, appId: app.id, driven, counted, session, bAccepts, health };
}

describe('revoked sessions across processes (jwt mode)', () => {
  it('B refuses a session A revoked once the channel says so, reading no storage', async () => {
    const p = await twoProcesses();
    expect(await p.b.sessions.watchRevocations()).toBe('live');
    const s = await p.session();
    await p.a.sessions.revoke(p.appId, { session_id: s.id });
    // Nothing delivered yet: B's set is what refuses, and B has not heard.
    expect(await p.bAccepts(s.jwt)).toBe(true);
    p.driven.deliver([{ app_id: p.appId, session_id: s.id, revoked_at: Math.floor(Date.now() / 1000) }]);
    p.counted.reset();
    expect(p.b.sessions.checkKnownJwt(p.appId, s.jwt)).toBeUndefined();
    expect(await p.bAccepts(s.jwt)).toBe(false);
    expect(p.counted.calls).toEqual([]);
  });

  it('filled from storage at start: a session revoked before B listened is refused', async () => {
    const p = await twoProcesses();
    const s = await p.session({ seenByB: false });
    await p.a.sessions.revoke(p.appId, { session_id: s.id });
    expect(p.b.sessions.revocationState()).toBe('idle');
    expect(await p.b.sessions.watchRevocations()).toBe('live');
    expect(await p.bAccepts(s.jwt)).toBe(false);
  });

  it('a lost channel: B reads storage (refusing what is revoked meanwhile), then catches up and trusts its set again', async () => {
    const p = await twoProcesses();
    await p.b.sessions.watchRevocations();
    const [during, missed, live] = [await p.session(), await p.session(), await p.session()];
    expect(await p.health(p.b)).toBe('live');
    p.driven.lose();
    expect(p.b.sessions.revocationState()).toBe('lost');
    expect(await p.health(p.b)).toBe('lost');
    // While lost, the known-JWT fast path is off and each check reads the session.
    expect(p.b.sessions.checkKnownJwt(p.appId, live.jwt)).toBeUndefined();
    p.counted.reset();
    expect(await p.bAccepts(live.jwt)).toBe(true);
    expect(p.counted.calls).toEqual(['sessions.get']);
    await p.a.sessions.revoke(p.appId, { session_id: during.id });
    expect(await p.bAccepts(during.jwt)).toBe(false);
    await p.a.sessions.revoke(p.appId, { session_id: missed.id });
    // Back: B reads what it missed before it trusts the set, then needs no storage.
    p.driven.restore();
    await until(() => p.b.sessions.revocationState() === 'live', 'B to catch up');
    p.counted.reset();
    expect(await p.bAccepts(missed.jwt)).toBe(false);
    expect(await p.bAccepts(during.jwt)).toBe(false);
    expect(await p.bAccepts(live.jwt)).toBe(true);
    expect(p.counted.calls).toEqual([]);
  });

  it('a channel that cannot start: B stays on storage reads and retries until it can', async () => {
    let attempts = 0;
    const driven = drivenChannel();
    const flaky: RevocationChannel = {
      subscribe: async (listener) => {
        attempts += 1;
        if (attempts < 3) throw new Error('ECONNREFUSED');
        return driven.channel.subscribe(listener);
      },
    };
    const warnings: string[] = [];
    const logger = { info() {}, error() {}, warn: (_: unknown, m: string) => void warnings.push(m) };
    const latchkey = createLatchkey({
      storage: memoryStorage(),
      secret: TEST_SECRET,
      revocationChannel: flaky,
      logger,
    });
    expect(await latchkey.sessions.watchRevocations()).toBe('lost');
    expect(warnings[0]).toMatch(/could not listen for session revocations/);
    await until(() => latchkey.sessions.revocationState() === 'live', 'the third attempt');
    expect(attempts).toBe(3);
    await latchkey.close();
  });

  it('this process refuses its own revocations at once, whatever its channel (a password change too)', async () => {
    const p = await twoProcesses();
    await p.b.sessions.watchRevocations();
    const s = await p.session();
    await p.b.sessions.revoke(p.appId, { session_id: s.id });
    expect(await p.bAccepts(s.jwt)).toBe(false);
    const t = await p.session();
    const u = await p.session();
    await p.b.sessions.revokeAll(p.appId, {
      user_id: (await p.b.sessions.check({ app_id: p.appId, session_jwt: t.jwt })).user_id,
    });
    expect(await p.bAccepts(t.jwt)).toBe(false);
    expect(await p.bAccepts(u.jwt)).toBe(false);
  });

  it('latchkey.close() stops listening', async () => {
    const p = await twoProcesses();
    await p.b.sessions.watchRevocations();
    expect(p.driven.listeners()).toBe(1);
    await p.b.close();
    expect(p.driven.listeners()).toBe(0);
  });
});

describe('GET /v1/auth/sessions/revocations', () => {
  it("lists the App's revocations (only its own) since a time, for the public token; cached briefly", async () => {
    const clock = manualClock(Date.now());
    const latchkey = createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET, clock });
    const [t, other] = [await testApp(latchkey), await testApp(latchkey)];
    const issue = async (appId: string) => {
      const user = await latchkey.users.create(appId, {});
      return (await latchkey.sessions.issue(appId, user.user_id, factor, { session_expires_in: 600 }))
        .session!.id;
    };
    const mine = await issue(t.app_id);
    const theirs = await issue(other.app_id);
    await latchkey.sessions.revoke(t.app_id, { session_id: mine });
    await latchkey.sessions.revoke(other.app_id, { session_id: theirs });
    const now = Math.floor(clock.now() / 1000);

    const res = await t.call('GET', '/v1/auth/sessions/revocations', undefined, t.public_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      revocations: [{ session_id: mine, revoked_at: now }],
      // Left out, `since` is as far back as one of the App's JWTs (300 s) can live, plus skew.
      since: now - 300 - 60,
      until: now,
    });
    expect(res.headers.get('cache-control')).toBe('private, max-age=5');
    expect(
      (await other.call('GET', '/v1/auth/sessions/revocations', undefined, other.public_token)).body
        .revocations,
    ).toEqual([{ session_id: theirs, revoked_at: now }]);
    // After the time asked: nothing; before the floor: the floor.
    const later = await t.call(
      'GET',
      `/v1/auth/sessions/revocations?since=${now + 1}`,
      undefined,
      t.public_token,
    );
    expect(later.body.revocations).toEqual([]);
    const old = await t.call('GET', '/v1/auth/sessions/revocations?since=0', undefined, t.secret_key);
    expect(old.body.since).toBe(now - 360);
    // Once a JWT can no longer be live, its revocation leaves the feed.
    clock.advance(361);
    expect(
      (await t.call('GET', '/v1/auth/sessions/revocations', undefined, t.public_token)).body.revocations,
    ).toEqual([]);

    for (const since of ['abc', '-1', '1.5', '1e20']) {
      const bad = await t.call(
        'GET',
        `/v1/auth/sessions/revocations?since=${since}`,
        undefined,
        t.public_token,
      );
      expect(bad.status).toBe(400);
      expectErrorShape(bad);
    }
    expect((await t.call('GET', '/v1/auth/sessions/revocations', undefined, null)).status).toBe(401);
  });

  it('501 storage_feature_missing from a storage that keeps no record', async () => {
    const { sessionRevocations: _c, ...storage } = memoryStorage();
    const { revokedSince: _r, ...sessions } = storage.sessions;
    const t = await testApp(createLatchkey({ storage: { ...storage, sessions }, secret: TEST_SECRET }));
    const res = await t.call('GET', '/v1/auth/sessions/revocations', undefined, t.public_token);
    expect(res.status).toBe(501);
    expect(expectErrorShape(res).error_type).toBe('storage_feature_missing');
  });
});
