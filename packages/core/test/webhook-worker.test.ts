import { memoryStorage } from '@latchkey/memory';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLatchkey, endpointPauseSeconds, type LatchkeyOptions, type Storage } from '../src/index.js';

const SECRET = 'webhook-worker-secret-0123456789abcdef';
const T0 = 1_800_000_000_000;

interface Call {
  url: string;
  settled: boolean;
  answer(status: number): void;
}

/** A fetch the test answers by hand (or at once, per URL), recording every call. */
function handFetch(autoAnswer: (url: string) => number | undefined = () => undefined) {
  const calls: Call[] = [];
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const call: Call = {
        url: String(input),
        settled: false,
        answer(status) {
          call.settled = true;
          resolve(new Response(null, { status }));
        },
      };
      init?.signal?.addEventListener('abort', () => {
        call.settled = true;
        reject(init.signal?.reason);
      });
      calls.push(call);
      const status = autoAnswer(call.url);
      if (status !== undefined) call.answer(status);
    })) as typeof globalThis.fetch;
  const open = (prefix = '') => calls.filter((c) => !c.settled && c.url.startsWith(prefix));
  return { fetch, calls, open };
}

function open(
  storage: Storage,
  fetch: typeof globalThis.fetch,
  webhooks: Partial<NonNullable<LatchkeyOptions['webhooks']>> = {},
  clock?: { now(): number },
) {
  return createLatchkey({
    storage,
    secret: SECRET,
    ...(clock ? { clock } : {}),
    // The endpoints' names resolve to a public address without DNS (the hand fetch sends nothing).
    webhooks: { fetch, timeoutMs: 60_000, lookup: async () => [{ address: '93.184.215.14' }], ...webhooks },
  });
}

const running: Array<{ stop: () => Promise<void>; hand: ReturnType<typeof handFetch> }> = [];
afterEach(async () => {
  // Stop claiming, then answer what is still out so the workers' stop() can resolve.
  for (const { stop, hand } of running.splice(0)) {
    let stopped = false;
    const stopping = stop().then(() => {
      stopped = true;
    });
    while (!stopped) {
      for (const c of hand.open()) c.answer(200);
      await new Promise((r) => setTimeout(r, 5));
    }
    await stopping;
  }
});

async function appWithEndpoints(latchkey: ReturnType<typeof open>, urls: string[]) {
  const app = await latchkey.apps.create({ name: 'Hooks' });
  for (const url of urls)
    await latchkey.webhooks.createEndpoint(app.app_id, { url, event_types: ['user.created'] });
  return app.app_id;
}

describe('the delivery worker', () => {
  it('keeps at most `concurrency` attempts in flight and claims for a slot the moment one frees', async () => {
    const hand = handFetch();
    const latchkey = open(memoryStorage(), hand.fetch, {
      maxInFlightPerApp: 100,
      maxInFlightPerEndpoint: 100,
    });
    const appId = await appWithEndpoints(latchkey, ['https://a.example.com/hook']);
    for (let i = 0; i < 8; i++) await latchkey.users.create(appId, {});
    // A poll a minute apart: anything sooner comes from a settled attempt freeing its slot.
    running.push({ stop: latchkey.webhooks.startDelivery({ intervalMs: 60_000, concurrency: 3 }), hand });
    await vi.waitFor(() => expect(hand.calls).toHaveLength(3));
    await new Promise((r) => setTimeout(r, 50));
    expect(hand.calls).toHaveLength(3);
    hand.calls[1]!.answer(200);
    // The other two are still out: the freed slot does not wait for them.
    await vi.waitFor(() => expect(hand.calls).toHaveLength(4));
    expect(hand.open()).toHaveLength(3);
    // Two settling together: the second frees its slot while the first one's claim is running.
    const [first, second] = hand.open();
    first!.answer(200);
    second!.answer(200);
    await vi.waitFor(() => expect(hand.calls).toHaveLength(6));
    expect(hand.open()).toHaveLength(3);
    for (let answered = 0; answered < 10 && hand.calls.length < 8; answered++) {
      const before = hand.calls.length;
      hand.open()[0]!.answer(200);
      await vi.waitFor(() => expect(hand.calls.length).toBe(Math.min(8, before + 1)));
      expect(hand.open().length).toBeLessThanOrEqual(3);
    }
    expect(hand.calls).toHaveLength(8);
  });

  it("holds an App to its cap across two workers and an endpoint to its own, while another App's deliveries go at once", async () => {
    const storage = memoryStorage();
    const hand = handFetch((url) => (url.startsWith('https://b.') ? 200 : undefined));
    const caps = { maxInFlightPerApp: 3, maxInFlightPerEndpoint: 2 };
    const one = open(storage, hand.fetch, caps);
    const two = open(storage, hand.fetch, caps);
    const a = await appWithEndpoints(one, ['https://a1.example.com/hook', 'https://a2.example.com/hook']);
    const b = await appWithEndpoints(one, ['https://b.example.com/hook']);
    const c = await appWithEndpoints(one, ['https://c.example.com/hook']);
    for (let i = 0; i < 10; i++) await one.users.create(a, {});
    for (let i = 0; i < 5; i++) await one.users.create(c, {});
    running.push(
      { stop: one.webhooks.startDelivery({ intervalMs: 20 }), hand },
      { stop: two.webhooks.startDelivery({ intervalMs: 20 }), hand },
    );
    await vi.waitFor(() => expect(hand.open('https://a')).toHaveLength(3));
    await vi.waitFor(() => expect(hand.open('https://c.')).toHaveLength(2));
    // Both workers keep looking (every 20 ms); none of them takes a fourth of App A's.
    await new Promise((r) => setTimeout(r, 200));
    expect(hand.open('https://a')).toHaveLength(3);
    expect(hand.open('https://a1').length).toBeLessThanOrEqual(2);
    expect(hand.open('https://a2').length).toBeLessThanOrEqual(2);
    // App C's one endpoint is held to its own cap, under its App's.
    expect(hand.open('https://c.')).toHaveLength(2);
    for (let i = 0; i < 4; i++) await one.users.create(b, {});
    await vi.waitFor(() => expect(hand.calls.filter((c) => c.url.startsWith('https://b.'))).toHaveLength(4));
    expect(hand.open('https://a')).toHaveLength(3);
  });

  it('pauses a failing endpoint on its own backoff, one attempt at a time, while its App\u2019s other endpoint keeps delivering', async () => {
    let now = T0;
    const clock = { now: () => now };
    let failing = true;
    const hand = handFetch((url) => (url.startsWith('https://down.') ? (failing ? 503 : 200) : 200));
    const latchkey = open(memoryStorage(), hand.fetch, {}, clock);
    const appId = await appWithEndpoints(latchkey, [
      'https://down.example.com/hook',
      'https://up.example.com/hook',
    ]);
    const drain = async () => {
      while ((await latchkey.webhooks.deliverDue()) > 0) {}
    };
    const count = (host: string) => hand.calls.filter((c) => c.url.startsWith(`https://${host}.`)).length;

    for (let i = 0; i < 3; i++) await latchkey.users.create(appId, {});
    await drain();
    expect([count('down'), count('up')]).toEqual([3, 3]);
    // New events while it rests: the healthy endpoint gets them now, the failing one none.
    for (let i = 0; i < 3; i++) await latchkey.users.create(appId, {});
    await drain();
    expect([count('down'), count('up')]).toEqual([3, 6]);
    // Its pause over (1 s after a first failure): one attempt, which fails and doubles the rest.
    now += 1000;
    await drain();
    expect(count('down')).toBe(4);
    const endpoint = (await latchkey.storage.webhooks.listEndpoints(appId)).find((e) =>
      e.url.includes('down'),
    )!;
    expect(endpoint.consecutive_failures).toBe(4);
    expect(endpoint.paused_until).toBe(Math.floor(now / 1000) + endpointPauseSeconds(4));
    now += (endpointPauseSeconds(4) - 1) * 1000;
    await drain();
    expect(count('down')).toBe(4);
    // Back up: one attempt succeeds, then all six it is owed (each due by now) go at once.
    failing = false;
    now += 1000;
    await drain();
    expect(count('down')).toBe(4 + 6);
    expect(count('up')).toBe(6);
    expect(hand.calls.slice(-6).map((c) => c.url)).toEqual(Array(6).fill('https://down.example.com/hook'));
  });

  it('deliverDue records each attempt as it settles and resolves once all were tried', async () => {
    const hand = handFetch((url) => (url.startsWith('https://fast.') ? 200 : undefined));
    const latchkey = open(memoryStorage(), hand.fetch);
    const appId = await appWithEndpoints(latchkey, [
      'https://slow.example.com/hook',
      'https://fast.example.com/hook',
    ]);
    const { user_id } = await latchkey.users.create(appId, {});
    const [event] = (await latchkey.events.list(appId, { type: 'user.created' })).events;
    let resolved = false;
    const run = latchkey.webhooks.deliverDue().then((n) => {
      resolved = true;
      return n;
    });
    await vi.waitFor(async () => {
      const deliveries = await latchkey.storage.webhooks.listDeliveries(appId, event!.id);
      expect(deliveries.map((d) => d.status).sort()).toEqual(['delivered', 'pending']);
    });
    expect(resolved).toBe(false);
    hand.open('https://slow.')[0]!.answer(200);
    expect(await run).toBe(2);
    expect(user_id).toMatch(/^user_/);
  });
});

describe('the endpoint backoff and caps', () => {
  it('doubles from 1 s per failure in a row, up to five minutes', () => {
    expect([0, 1, 2, 3, 9, 10, 11, 1000].map(endpointPauseSeconds)).toEqual([0, 1, 2, 4, 256, 300, 300, 300]);
  });

  it('refuses caps and a pool below one, and a poll faster than 10 ms', () => {
    for (const webhooks of [
      { maxInFlightPerApp: 0 },
      { maxInFlightPerEndpoint: 0 },
      { maxInFlightPerApp: 1.5 },
    ])
      expect(() => createLatchkey({ storage: memoryStorage(), secret: SECRET, webhooks })).toThrow();
    const latchkey = createLatchkey({ storage: memoryStorage(), secret: SECRET });
    for (const options of [{ concurrency: 0 }, { concurrency: 2.5 }, { intervalMs: 9 }])
      expect(() => latchkey.webhooks.startDelivery(options)).toThrow();
  });
});
