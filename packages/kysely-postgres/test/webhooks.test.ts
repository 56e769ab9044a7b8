import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  createLatchkey,
  type EventRecord,
  type Latchkey,
  type OutboundMessage,
  type Storage,
} from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { postgresStorage } from '../src/index.js';
import { DATABASE_URL, type Harness, postgresTarget, randomSchema, targets } from './targets.js';

const SECRET = 'webhooks-test-secret-0123456789abcdef';

/** A real HTTP receiver: records each delivery, answers what `answer` says. */
async function receiver() {
  const received: Array<{ headers: Record<string, string>; body: string }> = [];
  let answer = (_n: number): number => 200;
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString(),
      });
      res.statusCode = answer(received.length);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    answerWith(fn: (n: number) => number) {
      answer = fn;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

type Receiver = Awaited<ReturnType<typeof receiver>>;

const storages: Array<{
  name: string;
  open(): Promise<Harness | { storage: Storage; dispose(): Promise<void> }>;
}> = [
  { name: 'memory', open: async () => ({ storage: memoryStorage(), dispose: async () => {} }) },
  ...targets,
];

describe.each(storages)('events and webhooks on $name', (target) => {
  let h: { storage: Storage; dispose(): Promise<void> };
  let latchkey: Latchkey;
  let appId: string;
  let secretKey: string;
  let hook: Receiver;
  const sent: OutboundMessage[] = [];

  const api = async (method: string, path: string, body?: unknown, key = secretKey) => {
    const res = await latchkey.fetch(
      new Request(`http://x.test${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      }),
    );
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  beforeAll(async () => {
    h = await target.open();
    latchkey = createLatchkey({
      storage: h.storage,
      secret: SECRET,
      sender: { send: async (m) => void sent.push(m) },
      // The receivers listen on loopback: the operator allows private targets here.
      webhooks: { timeoutMs: 2000, allowPrivateTargets: true },
    });
    const app = await latchkey.apps.create({ name: 'Hooks' });
    appId = app.app_id;
    secretKey = app.secret_key;
    hook = await receiver();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await hook?.close();
    await h?.dispose();
  });

  const drain = async (instance = latchkey) => {
    while ((await instance.webhooks.deliverDue()) > 0) {}
  };

  it('writes events with the changes they report, lists them by type, newest first, a page at a time', async () => {
    const user = await api('POST', '/v1/auth/users', { email: 'ev@example.com' });
    expect(user.status).toBe(200);
    const all = await api('GET', '/v1/events?limit=2');
    expect(all.body.events.map((e: EventRecord) => e.type)).toEqual(['email.added', 'user.created']);
    expect(all.body.events[1].data).toEqual({ user_id: user.body.user_id, status: expect.any(String) });
    const created = await api('GET', '/v1/events?type=user.created');
    expect(created.body.events).toHaveLength(1);
    expect(created.body.next_cursor).toBeNull();

    for (let i = 0; i < 5; i++) await api('POST', '/v1/auth/users', { email: `page${i}@example.com` });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: Record<string, any> } = await api(
        'GET',
        `/v1/events?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.body.events.map((e: EventRecord) => e.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(12);
    expect([...seen].sort().reverse()).toEqual(seen);
    expect(new Set(seen).size).toBe(12);

    // Another App sees none of them.
    const other = await latchkey.apps.create({ name: 'Other' });
    expect((await api('GET', '/v1/events', undefined, other.secret_key)).body.events).toEqual([]);
    expect((await api('GET', `/v1/events/${seen[0]}`, undefined, other.secret_key)).body.error_type).toBe(
      'event_not_found',
    );
  });

  it('writes no event for a change that rolled back, and tells listeners only after commit', async () => {
    const heard: EventRecord[] = [];
    const off = latchkey.events.on('*', (e) => void heard.push(e));
    const before = (await api('GET', '/v1/events?limit=1000')).body.events.length;
    // The email is taken: the user insert rolls back with it.
    const dup = await api('POST', '/v1/auth/users', { email: 'ev@example.com' });
    expect(dup.status).toBe(409);
    expect((await api('GET', '/v1/events?limit=1000')).body.events.length).toBe(before);
    expect(heard).toEqual([]);

    await api('POST', '/v1/auth/users', { email: 'heard@example.com' });
    await vi.waitFor(() => expect(heard.map((e) => e.type)).toEqual(['user.created', 'email.added']));
    off();
  });

  it('refuses webhook URLs that are not https, carry credentials, or reach private addresses the operator does not allow', async () => {
    const strictServer = createLatchkey({ storage: h.storage, secret: SECRET });
    const strict = await strictServer.apps.create({ name: 'Strict' });
    const post = async (url: string) => {
      const res = await strictServer.fetch(
        new Request('http://x.test/v1/webhooks/endpoints', {
          method: 'POST',
          headers: { authorization: `Bearer ${strict.secret_key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url, event_types: ['user.created'] }),
        }),
      );
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    expect((await post('http://hooks.example.com/x')).body.error_type).toBe('invalid_webhook_url');
    expect((await post('https://u:p@hooks.example.com/x')).body.error_type).toBe('invalid_webhook_url');
    expect((await post('not a url')).body.error_type).toBe('invalid_webhook_url');
    for (const url of [
      'https://10.1.2.3/x',
      'https://169.254.169.254/x',
      'http://localhost:9/x',
      'https://[::1]/x',
      'https://192.168.0.9/',
    ])
      expect((await post(url)).body.error_type).toBe('webhook_url_not_allowed');
    expect((await post('https://hooks.example.com/x')).status).toBe(200);
    expect(
      (
        await api(
          'POST',
          '/v1/webhooks/endpoints',
          { url: 'https://hooks.example.com/x', event_types: ['nope'] },
          strict.secret_key,
        )
      ).status,
    ).toBe(400);
  });

  it('delivers every subscribed event signed per Standard Webhooks; a wrong secret fails verification', async () => {
    const endpoint = await api('POST', '/v1/webhooks/endpoints', {
      url: hook.url,
      event_types: ['user.created', 'session.created'],
    });
    expect(endpoint.status).toBe(200);
    expect(endpoint.body.secret).toMatch(/^whsec_/);
    const listed = await api('GET', '/v1/webhooks/endpoints');
    expect(JSON.stringify(listed.body)).not.toContain(endpoint.body.secret);

    const start = hook.received.length;
    const user = await api('POST', '/v1/auth/users', { email: 'signed@example.com' });
    await drain();
    const got = hook.received.slice(start);
    expect(got).toHaveLength(1); // email.added is not subscribed
    const verified = new Webhook(endpoint.body.secret).verify(got[0]!.body, got[0]!.headers) as EventRecord;
    expect(verified).toMatchObject({
      type: 'user.created',
      app_id: appId,
      data: { user_id: user.body.user_id },
    });
    expect(got[0]!.headers['webhook-id']).toBe(verified.id);
    const wrong = new Webhook(`whsec_${Buffer.from('x'.repeat(24)).toString('base64')}`);
    expect(() => wrong.verify(got[0]!.body, got[0]!.headers)).toThrow();

    const detail = await api('GET', `/v1/events/${verified.id}`);
    expect(detail.body.deliveries).toEqual([
      expect.objectContaining({ endpoint_id: endpoint.body.endpoint_id, status: 'delivered', attempts: 1 }),
    ]);
    expect(detail.body.deliveries[0].attempt_log[0].status_code).toBe(200);

    // Redelivery sends the same event (same id) again.
    const again = await api('POST', `/v1/events/${verified.id}/redeliver`, {});
    expect(again.body).toEqual({ event_id: verified.id, deliveries_due: 1 });
    await drain();
    expect(hook.received.at(-1)!.headers['webhook-id']).toBe(verified.id);
    expect((await api('DELETE', `/v1/webhooks/endpoints/${endpoint.body.endpoint_id}`)).status).toBe(200);
    expect((await api('DELETE', `/v1/webhooks/endpoints/${endpoint.body.endpoint_id}`)).body.error_type).toBe(
      'webhook_endpoint_not_found',
    );
  });

  it('retries with backoff through a failing receiver until each event arrives, processed once', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const endpoint = await api('POST', '/v1/webhooks/endpoints', {
      url: hook.url,
      event_types: ['user.created'],
    });
    const start = hook.received.length;
    hook.answerWith((n) => (n - start <= 9 ? 500 : 200));
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++)
      ids.add((await api('POST', '/v1/auth/users', { email: `retry${i}@example.com` })).body.user_id);
    const processed = new Map<string, number>();
    const perRound: number[] = [];
    for (let round = 0; round < 8; round++) {
      const before = hook.received.length;
      await drain();
      perRound.push(hook.received.length - before);
      vi.setSystemTime(Date.now() + 3 * 3600 * 1000);
    }
    // All three at once; then, while it fails, the endpoint gets one attempt at a time (its own
    // backoff, not a retry each delivery would spend); once one succeeds the other two follow.
    expect(perRound).toEqual([3, 1, 1, 1, 1, 1, 1, 3]);
    const wh = new Webhook(endpoint.body.secret);
    for (const r of hook.received.slice(start)) {
      vi.setSystemTime(Number(r.headers['webhook-timestamp']) * 1000);
      const e = wh.verify(r.body, r.headers) as EventRecord;
      processed.set(e.id, (processed.get(e.id) ?? 0) + 1);
    }
    // Three failed attempts for each event, then each once more, successfully.
    expect(hook.received.length - start).toBe(12);
    expect(processed.size).toBe(3);
    const eventIds = [...processed.keys()];
    const detail = await api('GET', `/v1/events/${eventIds[0]}`);
    expect(detail.body.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 4 });
    expect(detail.body.deliveries[0].attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([
      500, 500, 500, 200,
    ]);
    hook.answerWith(() => 200);
    await api('DELETE', `/v1/webhooks/endpoints/${endpoint.body.endpoint_id}`);
  });

  it('disables an endpoint whose deliveries fail for a day, and reports it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const watcher = await receiver();
    await api('POST', '/v1/webhooks/endpoints', {
      url: watcher.url,
      event_types: ['webhook_endpoint.disabled'],
    });
    const dead = await api('POST', '/v1/webhooks/endpoints', {
      url: 'http://127.0.0.1:9/dead',
      event_types: ['user.created'],
    });
    await api('POST', '/v1/auth/users', { email: 'dead@example.com' });
    for (let hour = 0; hour < 30; hour++) {
      await drain();
      vi.setSystemTime(Date.now() + 3600 * 1000);
    }
    await drain();
    const listed = (await api('GET', '/v1/webhooks/endpoints')).body.endpoints;
    expect(listed.find((e: { endpoint_id: string }) => e.endpoint_id === dead.body.endpoint_id).status).toBe(
      'disabled',
    );
    const reported = (await api('GET', '/v1/events?type=webhook_endpoint.disabled')).body.events;
    expect(reported[0].data).toEqual({ endpoint_id: dead.body.endpoint_id, url: 'http://127.0.0.1:9/dead' });
    expect(watcher.received.map((r) => (JSON.parse(r.body) as EventRecord).type)).toEqual([
      'webhook_endpoint.disabled',
    ]);
    await watcher.close();
  });

  it('never puts a code, token, key or secret in an event, delivery or attempt', async () => {
    await api('POST', '/v1/webhooks/endpoints', {
      url: hook.url,
      event_types: ['session.created', 'totp.created', 'wallet.exported', 'sign_in.failed'],
    });
    const app = await latchkey.apps.get(appId);
    const start = hook.received.length;
    const secrets: string[] = [SECRET, secretKey];
    const { method_id } = await latchkey.otps.loginOrCreate(appId, 'email', { address: 'dump@example.com' });
    const code = sent.at(-1)!.code!;
    await latchkey.otps
      .verify(appId, { method_id, otp: code.replace(/\d$/, (d) => String((Number(d) + 1) % 10)) })
      .catch(() => {});
    const session = await latchkey.otps.verify(appId, { method_id, otp: code, session_expires_in: 60 });
    secrets.push(code, session.session_token!, session.session_jwt!);
    const totp = await latchkey.totps.create(appId, { user_id: session.user_id });
    secrets.push(totp.secret, ...totp.recovery_codes);
    const wallet = await latchkey.wallets.create(appId, {
      user_id: session.user_id,
      wallet_type: 'ethereum',
    });
    const exported = await api('POST', `/v1/wallets/${wallet.id}/export`, {
      recipient_public_key: Buffer.from(new Uint8Array(32).fill(9)).toString('base64'),
    });
    expect(exported.body).toMatchObject({ wallet_id: wallet.id });
    await drain();
    const events = (await api('GET', '/v1/events?limit=1000')).body.events as EventRecord[];
    const types = events.map((e) => e.type);
    for (const t of [
      'session.created',
      'sign_in.failed',
      'totp.created',
      'wallet.created',
      'wallet.exported',
    ])
      expect(types).toContain(t);
    const details = await Promise.all(events.map((e) => api('GET', `/v1/events/${e.id}`)));
    const dump = JSON.stringify([events, details, hook.received.slice(start)]);
    expect(hook.received.length).toBeGreaterThan(start);
    for (const s of secrets) expect(dump).not.toContain(s);
    expect(dump).not.toMatch(/whsec_|sk_|pk_/);
    expect(app.name).toBe('Hooks');
  });
});

describe.each(targets)('webhook delivery across processes on $name', (target) => {
  it('two workers on one database deliver each of 200 events exactly once', async () => {
    const h = await target.open();
    // A second Storage over the same schema: its own connections, as another process has.
    const second =
      target.name === 'postgres'
        ? await postgresStorage(DATABASE_URL!, { schema: h.schema, pool: { max: 10 } })
        : h.storage;
    const webhooks = { allowPrivateTargets: true };
    const a = createLatchkey({ storage: h.storage, secret: SECRET, webhooks });
    const b = createLatchkey({ storage: second, secret: SECRET, webhooks });
    const hook = await receiver();
    try {
      const app = await a.apps.create({ name: 'Two' });
      await a.webhooks.createEndpoint(app.app_id, { url: hook.url, event_types: ['user.created'] });
      for (let i = 0; i < 200; i += 20)
        await Promise.all(
          Array.from({ length: 20 }, (_, j) =>
            a.users.create(app.app_id, { name: { first_name: `u${i + j}` } }),
          ),
        );
      const drainOn = async (l: Latchkey) => {
        while ((await l.webhooks.deliverDue(10)) > 0) {}
      };
      await Promise.all([drainOn(a), drainOn(b), drainOn(a), drainOn(b)]);
      const ids = hook.received.map((r) => (JSON.parse(r.body) as EventRecord).id);
      expect(ids).toHaveLength(200);
      expect(new Set(ids).size).toBe(200);
    } finally {
      await hook.close();
      if (second !== h.storage) await second.close();
      await h.dispose();
    }
  });
});

const runFixture = (name: string, env: Record<string, string>) => {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  return new Promise<{ code: number | null; out: string }>((r) =>
    child.on('exit', (code) => r({ code, out: out.trim() })),
  );
};

describe.skipIf(!DATABASE_URL)('two server processes on one Postgres', () => {
  it('deliver each of 200 events exactly once between them', async () => {
    const h = await postgresTarget.open();
    const hook = await receiver();
    const latchkey = createLatchkey({
      storage: h.storage,
      secret: SECRET,
      webhooks: { allowPrivateTargets: true },
    });
    try {
      const app = await latchkey.apps.create({ name: 'Processes' });
      await latchkey.webhooks.createEndpoint(app.app_id, { url: hook.url, event_types: ['user.created'] });
      for (let i = 0; i < 200; i += 20)
        await Promise.all(Array.from({ length: 20 }, () => latchkey.users.create(app.app_id, {})));
      const env = { SCHEMA: h.schema, SECRET };
      const runs = await Promise.all([runFixture('deliver-all.ts', env), runFixture('deliver-all.ts', env)]);
      expect(runs.map((r) => r.code)).toEqual([0, 0]);
      const counts = runs.map((r) => Number(r.out));
      expect(counts[0]! + counts[1]!).toBe(200);
      const ids = hook.received.map((r) => (JSON.parse(r.body) as EventRecord).id);
      expect(ids).toHaveLength(200);
      expect(new Set(ids).size).toBe(200);
    } finally {
      await hook.close();
      await h.dispose();
    }
  }, 180_000);
});

describe.skipIf(!DATABASE_URL)('a process killed between commit and delivery', () => {
  it('leaves the event in the outbox, and the next process delivers it', async () => {
    const h = await postgresTarget.open();
    const hook = await receiver();
    const latchkey = createLatchkey({
      storage: h.storage,
      secret: SECRET,
      webhooks: { allowPrivateTargets: true },
    });
    try {
      const app = await latchkey.apps.create({ name: 'Killed' });
      await latchkey.webhooks.createEndpoint(app.app_id, { url: hook.url, event_types: ['user.created'] });
      const child = spawn(
        process.execPath,
        [
          '--conditions=source',
          '--import',
          'tsx',
          fileURLToPath(new URL('./fixtures/commit-then-die.ts', import.meta.url)),
        ],
        {
          env: { ...process.env, SCHEMA: h.schema, APP_ID: app.app_id, SECRET },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c));
      const signal = await new Promise((r) => child.on('exit', (_code, sig) => r(sig)));
      expect(signal).toBe('SIGKILL');
      const userId = out.trim();
      expect(userId).toMatch(/^user_/);
      expect(hook.received).toHaveLength(0);
      while ((await latchkey.webhooks.deliverDue()) > 0) {}
      expect(hook.received.map((r) => (JSON.parse(r.body) as EventRecord).data.user_id)).toEqual([userId]);
    } finally {
      await hook.close();
      await h.dispose();
    }
  });
});

void randomSchema;
