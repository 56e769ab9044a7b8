import { randomBytes } from 'node:crypto';
import {
  createLatchkey,
  type Factor,
  isLatchkeyError,
  type RevocationListener,
  type SessionRevocation,
} from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { redisRevocationChannel } from '@latchkey/redis';
import { Redis, type RedisOptions } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REDIS_URL, reachable } from './redis-server.js';
import { tcpProxy } from './tcp-proxy.js';

const canRun = await reachable();
if (!canRun)
  console.warn(
    `@latchkey/redis: no Redis at ${REDIS_URL}; skipping its tests (start redis-server to run them).`,
  );

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

// Names of this run: channels and connections no other test, or run, shares.
const run = randomBytes(6).toString('hex');
let named = 0;
const uniqueName = (what: string) => `latchkey-test:${run}:${what}:${++named}`;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function client(options: RedisOptions = {}, url = REDIS_URL) {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, ...options });
  redis.on('error', () => {});
  cleanups.push(() => redis.quit().catch(() => redis.disconnect()));
  return redis;
}

async function until(what: string, condition: () => boolean | Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Waited ${ms} ms for ${what}.`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The ids of the subscribed connections named `name` (a duplicate keeps its client's name). */
async function subscribers(name: string): Promise<string[]> {
  const list = (await client().client('LIST')) as string;
  return list
    .split('\n')
    .filter((line) => line.includes(` name=${name} `) && !/ sub=0 /.test(line))
    .map((line) => /\bid=(\d+)/.exec(line)?.[1] as string);
}

/** Not `CLIENT KILL TYPE pubsub`: other tests, and other runs, share this Redis. */
async function killSubscriber(name: string) {
  const ids = await subscribers(name);
  expect(ids).toHaveLength(1);
  await client().client('KILL', 'ID', ids[0] as string);
}

/** A listener that writes down what it hears. */
function recorder() {
  const heard: SessionRevocation[] = [];
  const events: string[] = [];
  const listener: RevocationListener = {
    revoked: (revocations) => void heard.push(...revocations),
    lost: () => void events.push('lost'),
    restored: () => void events.push('restored'),
  };
  return { heard, events, listener };
}

/** The connection `redisRevocationChannel` duplicates from `redis`, to watch it. */
function duplicates(redis: Redis) {
  const spy = vi.spyOn(redis, 'duplicate');
  return () => spy.mock.results.map((r) => r.value as Redis);
}

/**
 * Two Latchkeys (two processes) on one storage whose own channel is removed: only Redis tells B
 * what A revoked. `b` options go to B's Redis client (and so to its subscriber).
 */
async function twoProcesses(b: RedisOptions = {}) {
  const channel = uniqueName('revocations');
  const bName = uniqueName('b');
  const { sessionRevocations: _, ...storage } = memoryStorage();
  const open = (redis: Redis) => {
    const latchkey = createLatchkey({
      storage,
      secret: 'redis-test-secret-that-is-long-enough-0123',
      logger: { info() {}, warn() {}, error() {} },
      revocationChannel: redisRevocationChannel({ redis, channel }),
    });
    cleanups.push(() => latchkey.close());
    return latchkey;
  };
  const a = open(client());
  const bRedis = client({ connectionName: bName, ...b });
  const bLatchkey = open(bRedis);
  const { app } = await a.apps.create({ name: 'Redis revocations' });
  const user = await a.users.create(app.id, { email: 'redis@example.com' });
  expect(await a.sessions.watchRevocations()).toBe('live');
  expect(await bLatchkey.sessions.watchRevocations()).toBe('live');
  return {
    a,
    b: bLatchkey,
    appId: app.id,
    channel,
    bName,
    async signIn() {
      const issued = await a.sessions.issue(app.id, user.user_id, factor, { session_expires_in: 60 });
      return { jwt: issued.session_jwt as string, id: issued.session?.id as string };
    },
    /** Whether B accepts the session JWT in jwt mode. */
    accepts: (jwt: string) =>
      bLatchkey.sessions.check({ app_id: app.id, session_jwt: jwt, mode: 'jwt' }).then(
        () => true,
        (err: unknown) => {
          if (isLatchkeyError(err) && err.errorType === 'session_not_found') return false;
          throw err;
        },
      ),
  };
}

describe.skipIf(!canRun)('redisRevocationChannel', () => {
  it('a session revoked in one process is refused by another in jwt mode within a second', async () => {
    const { a, b, appId, signIn, accepts } = await twoProcesses();
    const s = await signIn();
    const kept = await signIn();
    expect(await accepts(s.jwt)).toBe(true);
    expect(await accepts(kept.jwt)).toBe(true);

    await a.sessions.revoke(appId, { session_id: s.id });
    const deadline = Date.now() + 1000;
    while ((await accepts(s.jwt)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(await accepts(s.jwt)).toBe(false);
    // Heard, not read: B is live, so jwt mode reads no storage.
    expect(b.sessions.revocationState()).toBe('live');
    expect(await accepts(kept.jwt)).toBe(true);
  });

  it('a killed connection: lost, back to live by itself, and what was revoked meanwhile is refused', async () => {
    // B reconnects a second after the break: A revokes while B cannot hear it.
    const { a, b, appId, bName, signIn, accepts } = await twoProcesses({ retryStrategy: () => 1000 });
    const s = await signIn();
    const kept = await signIn();
    expect(await accepts(s.jwt)).toBe(true);

    await killSubscriber(bName);
    await until('B to lose its channel', () => b.sessions.revocationState() === 'lost', 2000);
    await a.sessions.revoke(appId, { session_id: s.id });
    await until('B to be live again', () => b.sessions.revocationState() === 'live');
    expect(await subscribers(bName)).toHaveLength(1);
    // Caught up from storage: the message itself went out while B was away.
    expect(await accepts(s.jwt)).toBe(false);
    expect(await accepts(kept.jwt)).toBe(true);
  });

  it('comes back even when the host’s client would give up reconnecting', async () => {
    const { b, bName } = await twoProcesses({ retryStrategy: () => null });
    await killSubscriber(bName);
    await until('B to lose its channel', () => b.sessions.revocationState() === 'lost', 2000);
    await until('B to be live again', () => b.sessions.revocationState() === 'live');
  });

  it('ignores malformed messages on the channel and keeps working', async () => {
    const { a, b, appId, channel, signIn, accepts } = await twoProcesses();
    const s = await signIn();
    const later = await signIn();
    expect(await accepts(s.jwt)).toBe(true);
    const stranger = client();
    for (const message of [
      'not json',
      '{}',
      'null',
      '{"v":1,"r":[1,2,3]}',
      '{"v":1,"r":[["app","session",1e999]]}',
      // `s` beside a broken entry: a message is taken whole or not at all.
      `{"v":1,"r":[["${appId}","${s.id}",${Math.floor(Date.now() / 1000)}],["x"]]}`,
    ])
      await stranger.publish(channel, message);

    // Heard after everything before it on the channel.
    await a.sessions.revoke(appId, { session_id: later.id });
    await until('B to refuse the later revocation', async () => !(await accepts(later.jwt)), 1000);
    expect(b.sessions.revocationState()).toBe('live');
    expect(await accepts(s.jwt)).toBe(true);
  });

  it('shares one connection among the listeners of a channel, and closes it when the last leaves', async () => {
    const name = uniqueName('shared');
    const redis = client({ connectionName: name });
    const channel = redisRevocationChannel({ redis, channel: uniqueName('revocations') });
    const one = recorder();
    const two = recorder();
    const [first, second] = await Promise.all([
      channel.subscribe(one.listener),
      channel.subscribe(two.listener),
    ]);
    expect(await subscribers(name)).toHaveLength(1);

    // Several messages' worth, every one heard by both.
    const many = Array.from({ length: 3000 }, (_, i) => ({
      app_id: 'app_shared',
      session_id: `session_${i.toString().padStart(30, '0')}`,
      revoked_at: 1_700_000_000,
    }));
    await channel.publish?.(many);
    await until('both to hear', () => one.heard.length === 3000 && two.heard.length === 3000);
    expect(one.heard).toEqual(many);

    await first.close();
    await first.close();
    expect(await subscribers(name)).toHaveLength(1);
    await channel.publish?.([many[0] as SessionRevocation]);
    await until('the other to hear', () => two.heard.length === 3001);
    expect(one.heard).toHaveLength(3000);

    await second.close();
    await until('the connection to go', async () => (await subscribers(name)).length === 0, 2000);
    // A new listener opens a new one.
    const third = await channel.subscribe(recorder().listener);
    expect(await subscribers(name)).toHaveLength(1);
    await third.close();
  });

  it('tells lost once over failed reconnects and restored once, and closes while down at once', async () => {
    const target = new URL(REDIS_URL);
    const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    cleanups.push(() => proxy.close());
    const through = new URL(REDIS_URL);
    through.hostname = '127.0.0.1';
    through.port = String(proxy.port);
    const redis = client({ retryStrategy: () => 50 }, through.href);
    const subscriberOf = duplicates(redis);
    const channel = redisRevocationChannel({ redis, channel: uniqueName('revocations') });
    const { events, heard, listener } = recorder();
    const lost = vi.spyOn(listener, 'lost');
    const subscription = await channel.subscribe(listener);
    const sub = subscriberOf()[0] as Redis;
    let closes = 0;
    sub.on('close', () => {
      closes += 1;
    });
    const errors: unknown[] = [];
    sub.on('error', (err) => void errors.push(err));

    proxy.cut();
    await until('reconnects to fail', () => closes >= 4);
    expect(events).toEqual(['lost']);
    expect(lost.mock.calls[0]?.[0]).toBeInstanceOf(Error);
    proxy.mend();
    await until('the channel to be back', () => events.length === 2);
    expect(events).toEqual(['lost', 'restored']);
    const before = [...errors];
    await channel.publish?.([{ app_id: 'app_1', session_id: 'session_1', revoked_at: 1 }]);
    await until('the revocation to be heard', () => heard.length === 1);

    proxy.cut();
    await until('the channel to break', () => events.length === 3);
    await subscription.close();
    // No reconnect is left waiting (it would keep the process alive), though Redis is back.
    const attempts: string[] = [];
    sub.on('connecting', () => void attempts.push('connecting'));
    proxy.mend();
    await new Promise((r) => setTimeout(r, 300));
    expect(attempts).toEqual([]);
    expect(events).toEqual(['lost', 'restored', 'lost']);
    // Why the second break happened, not an error of the first outage.
    expect(lost.mock.calls[1]?.[0]).toBeInstanceOf(Error);
    expect(before).not.toContain(lost.mock.calls[1]?.[0]);
  });

  it('subscribes again when Redis refused it for a while (an ACL changed)', async (ctx) => {
    const admin = client();
    const user = uniqueName('user').replaceAll(':', '-');
    const channelName = uniqueName('revocations');
    try {
      await admin.acl('SETUSER', user, 'on', '>pw', '+@all', '~*', `&${channelName}`);
    } catch {
      return ctx.skip();
    }
    cleanups.push(() => admin.acl('DELUSER', user));
    const redis = client({ username: user, password: 'pw', retryStrategy: () => 50 });
    const channel = redisRevocationChannel({ redis, channel: channelName });
    const { events, listener } = recorder();
    const subscription = await channel.subscribe(listener);
    // Before the user goes: its connections could not come back.
    cleanups.push(() => subscription.close());

    // Redis disconnects a subscriber from a channel it may no longer use; each SUBSCRIBE is refused.
    await admin.acl('SETUSER', user, 'resetchannels');
    await until('the channel to break', () => events.length === 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(events).toEqual(['lost']);
    await admin.acl('SETUSER', user, `&${channelName}`);
    await until('the channel to be back', () => events.length === 2);
    expect(events).toEqual(['lost', 'restored']);
  });

  it('rejects when it cannot start, and leaves nothing running', async () => {
    const redis = client({ retryStrategy: () => 50, lazyConnect: true }, 'redis://127.0.0.1:1');
    const subscriberOf = duplicates(redis);
    const channel = redisRevocationChannel({ redis, channel: uniqueName('revocations') });
    await expect(channel.subscribe(recorder().listener)).rejects.toThrow(/ECONNREFUSED/);
    const sub = subscriberOf()[0] as Redis;
    const statuses: string[] = [];
    sub.on('connecting', () => void statuses.push('connecting'));
    await new Promise((r) => setTimeout(r, 300));
    expect(statuses).toEqual([]);
    // Asked again, it tries again.
    await expect(channel.subscribe(recorder().listener)).rejects.toThrow(/ECONNREFUSED/);
    expect(subscriberOf()).toHaveLength(2);
  });
});
