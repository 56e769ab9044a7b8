import type {
  ClaimedDelivery,
  ClaimLimits,
  EventRecord,
  Storage,
  WebhookEndpointRecord,
} from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { makeApp, NOW, uid } from './fixtures.js';

export function makeEndpoint(
  appId: string,
  over: Partial<WebhookEndpointRecord> = {},
): WebhookEndpointRecord {
  return {
    id: uid('whep'),
    app_id: appId,
    url: 'https://hooks.example.com/latchkey',
    event_types: ['user.created'],
    sealed_secret: uid('sealed'),
    status: 'enabled',
    disabled_at: null,
    created_at: NOW,
    consecutive_failures: 0,
    paused_until: null,
    ...over,
  };
}

export function makeEvent(appId: string, createdAt = NOW): EventRecord {
  return { id: uid('evt'), app_id: appId, type: 'user.created', data: { n: 1 }, created_at: createdAt };
}

const LEASE = 60;
const wide: ClaimLimits = { limit: 1000, perApp: 1000, perEndpoint: 1000 };
const key = (c: ClaimedDelivery) => `${c.delivery.event_id} ${c.delivery.endpoint_id}`;
const countBy = (claimed: ClaimedDelivery[], of: (c: ClaimedDelivery) => string) => {
  const counts = new Map<string, number>();
  for (const c of claimed) counts.set(of(c), (counts.get(of(c)) ?? 0) + 1);
  return counts;
};

/**
 * The delivery worker's claim: leased once across concurrent claimers, caps counted from live
 * leases, fair between Apps and between an App's endpoints, and an endpoint's own backoff.
 * `claimDue` serves every App, so each case removes its endpoints (and so its deliveries) after.
 */
export function webhookRepoCases(storage: () => Storage, parallelism = 1): void {
  const made: Array<{ appId: string; endpointId: string }> = [];
  const setup = async (endpoints = 1, over: Partial<WebhookEndpointRecord> = {}) => {
    const s = storage();
    const app = makeApp();
    await s.apps.insert(app);
    const list: WebhookEndpointRecord[] = [];
    for (let i = 0; i < endpoints; i++) {
      const e = makeEndpoint(app.id, over);
      await s.webhooks.insertEndpoint(e);
      made.push({ appId: app.id, endpointId: e.id });
      list.push(e);
    }
    return { s, app, endpoints: list };
  };
  const events = async (s: Storage, appId: string, n: number, createdAt = NOW) => {
    const list = Array.from({ length: n }, (_, i) => makeEvent(appId, createdAt + i));
    for (const e of list) await s.events.insert(e);
    return list;
  };
  const cleanUp = async () => {
    const s = storage();
    for (const { appId, endpointId } of made.splice(0)) await s.webhooks.deleteEndpoint(appId, endpointId);
  };
  const delivered = (c: ClaimedDelivery, at: number) =>
    storage().webhooks.recordAttempt(
      {
        id: uid('whatt'),
        app_id: c.delivery.app_id,
        event_id: c.delivery.event_id,
        endpoint_id: c.delivery.endpoint_id,
        attempted_at: at,
        status_code: 200,
        error: null,
        duration_ms: 1,
      },
      { status: 'delivered', at },
    );
  const failed = (c: ClaimedDelivery, at: number, pausedUntil: number) =>
    storage().webhooks.recordAttempt(
      {
        id: uid('whatt'),
        app_id: c.delivery.app_id,
        event_id: c.delivery.event_id,
        endpoint_id: c.delivery.endpoint_id,
        attempted_at: at,
        status_code: null,
        error: 'timeout',
        duration_ms: 1,
      },
      { status: 'pending', next_attempt_at: at, endpoint_paused_until: pausedUntil },
    );

  describe('webhook delivery claims', () => {
    it('leases each due delivery to one of many concurrent claimers, with its event and endpoint, until the lease lapses', async () => {
      try {
        const { s, app, endpoints } = await setup(2);
        const evts = await events(s, app.id, 20);
        expect(await s.webhooks.claimDue(NOW - 1, NOW + LEASE, wide)).toEqual([]);
        const claimers = Math.max(parallelism, 4);
        const all: ClaimedDelivery[] = [];
        for (let round = 0; round < 50 && all.length < 40; round++) {
          const got = await Promise.all(
            Array.from({ length: claimers }, () =>
              s.webhooks.claimDue(NOW + 30, NOW + 30 + LEASE, { ...wide, limit: 3 }),
            ),
          );
          all.push(...got.flat());
        }
        expect(all).toHaveLength(40);
        expect(new Set(all.map(key)).size).toBe(40);
        const one = all.find((c) => c.event.id === evts[0]!.id && c.endpoint.id === endpoints[0]!.id)!;
        expect(one.event).toEqual(evts[0]);
        expect(one.endpoint).toEqual(endpoints[0]);
        expect(one.delivery).toMatchObject({ status: 'pending', attempts: 0, lease_until: NOW + 30 + LEASE });
        // Nothing is claimable while the leases live; all of it once they lapse.
        expect(await s.webhooks.claimDue(NOW + 31, NOW + 31 + LEASE, wide)).toEqual([]);
        // A lease that ends now no longer counts against the caps either.
        const lapsed = { limit: 1000, perApp: 40, perEndpoint: 20 };
        expect(await s.webhooks.claimDue(NOW + 30 + LEASE, NOW + 300, lapsed)).toHaveLength(40);
      } finally {
        await cleanUp();
      }
    });

    it('holds each App and each endpoint to its cap of live leases, across claims and concurrent claimers', async () => {
      try {
        const { s, app, endpoints } = await setup(3);
        await events(s, app.id, 10);
        const caps = { limit: 100, perApp: 5, perEndpoint: 2 };
        const first = await s.webhooks.claimDue(NOW + 20, NOW + LEASE, caps);
        expect(first).toHaveLength(5);
        for (const n of countBy(first, (c) => c.endpoint.id).values()) expect(n).toBeLessThanOrEqual(2);
        // The App is at its cap: nothing more until a lease is released or lapses.
        expect(await s.webhooks.claimDue(NOW + 21, NOW + LEASE, caps)).toEqual([]);
        await delivered(first[0]!, NOW + 22);
        const next = await s.webhooks.claimDue(NOW + 22, NOW + LEASE, caps);
        expect(next).toHaveLength(1);
        const held = countBy([...first.slice(1), ...next], (c) => c.endpoint.id);
        expect(Math.max(...held.values())).toBeLessThanOrEqual(2);

        // Concurrent claimers together stay within the caps too.
        const other = await setup(2);
        await events(other.s, other.app.id, 10);
        const racing = (
          await Promise.all(
            Array.from({ length: Math.max(parallelism, 4) }, () =>
              s.webhooks.claimDue(NOW + 23, NOW + LEASE, { limit: 100, perApp: 3, perEndpoint: 2 }),
            ),
          )
        ).flat();
        const ofOther = racing.filter((c) => c.delivery.app_id === other.app.id);
        expect(ofOther).toHaveLength(3);
        for (const n of countBy(ofOther, (c) => c.endpoint.id).values()) expect(n).toBeLessThanOrEqual(2);
        expect(racing.filter((c) => c.delivery.app_id === app.id)).toEqual([]);
        expect(endpoints).toHaveLength(3);
      } finally {
        await cleanUp();
      }
    });

    it('holds the caps when concurrent claimers see different due sets (their clocks differ)', async () => {
      try {
        const s = storage();
        for (let round = 0; round < 8; round++) {
          // The early claimer sees only the first endpoint's deliveries due, the late one both
          // endpoints': each would take a different pair, so only a claim that reads the other's
          // committed leases keeps the App at two.
          const { app } = await setup(1);
          const second = makeEndpoint(app.id, { event_types: ['email.added'] });
          await s.webhooks.insertEndpoint(second);
          made.push({ appId: app.id, endpointId: second.id });
          await events(s, app.id, 2, NOW);
          for (let i = 0; i < 2; i++)
            await s.events.insert({ ...makeEvent(app.id, NOW + 50), type: 'email.added' });
          const caps = { limit: 10, perApp: 2, perEndpoint: 2 };
          const [early, late] = await Promise.all([
            s.webhooks.claimDue(NOW + 1, NOW + 1000, caps),
            s.webhooks.claimDue(NOW + 100, NOW + 1000, caps),
          ]);
          const held = [...early!, ...late!].filter((c) => c.delivery.app_id === app.id);
          expect(held).toHaveLength(2);
          await cleanUp();
        }
      } finally {
        await cleanUp();
      }
    });

    it('deals fairly: an App with a large older backlog does not take the slots of an App with a little', async () => {
      try {
        const busy = await setup(1);
        await events(busy.s, busy.app.id, 30, NOW);
        const quiet = await setup(1);
        await events(quiet.s, quiet.app.id, 2, NOW + 100);
        const third = await setup(1);
        await events(third.s, third.app.id, 1, NOW + 200);
        const claimed = await busy.s.webhooks.claimDue(NOW + 300, NOW + 300 + LEASE, {
          limit: 4,
          perApp: 10,
          perEndpoint: 10,
        });
        // Every App's first before any App's second: the busy App's backlog is older, and waits.
        expect(countBy(claimed, (c) => c.delivery.app_id)).toEqual(
          new Map([
            [busy.app.id, 2],
            [quiet.app.id, 1],
            [third.app.id, 1],
          ]),
        );
        // Within an App, the oldest due first.
        const busyIds = claimed
          .filter((c) => c.delivery.app_id === busy.app.id)
          .map((c) => c.event.created_at);
        expect(busyIds.sort()).toEqual([NOW, NOW + 1]);
      } finally {
        await cleanUp();
      }
    });

    it("deals an App's slots to its endpoints in turn, not all to the one with the oldest backlog", async () => {
      try {
        const { s, app, endpoints } = await setup(1, { event_types: ['user.created'] });
        await events(s, app.id, 10, NOW);
        const late = makeEndpoint(app.id);
        await s.webhooks.insertEndpoint(late);
        made.push({ appId: app.id, endpointId: late.id });
        await events(s, app.id, 1, NOW + 50);
        const claimed = await s.webhooks.claimDue(NOW + 60, NOW + 60 + LEASE, {
          limit: 100,
          perApp: 2,
          perEndpoint: 10,
        });
        expect(countBy(claimed, (c) => c.endpoint.id)).toEqual(
          new Map([
            [endpoints[0]!.id, 1],
            [late.id, 1],
          ]),
        );
      } finally {
        await cleanUp();
      }
    });

    it('pauses a failing endpoint alone, then gives it one attempt at a time until one succeeds', async () => {
      try {
        const { s, app, endpoints } = await setup(2);
        const [slow, healthy] = endpoints as [WebhookEndpointRecord, WebhookEndpointRecord];
        await events(s, app.id, 6);
        const caps = { limit: 100, perApp: 100, perEndpoint: 3 };
        const first = await s.webhooks.claimDue(NOW + 10, NOW + 10 + LEASE, caps);
        expect(countBy(first, (c) => c.endpoint.id).get(slow.id)).toBe(3);
        const slowOnes = first.filter((c) => c.endpoint.id === slow.id);
        await failed(slowOnes[0]!, NOW + 11, NOW + 40);
        // A pause already set stands when a later failure asks for a shorter one.
        await failed(slowOnes[1]!, NOW + 11, NOW + 20);
        expect(await s.webhooks.getEndpoint(app.id, slow.id)).toMatchObject({
          consecutive_failures: 2,
          paused_until: NOW + 40,
        });
        await failed(slowOnes[2]!, NOW + 11, NOW + 11);
        for (const c of first.filter((c) => c.endpoint.id === healthy.id)) await delivered(c, NOW + 11);
        // Paused (and none of its attempts in flight): none of its deliveries is claimed, the
        // other endpoint's are.
        const during = await s.webhooks.claimDue(NOW + 39, NOW + 39 + LEASE, caps);
        expect(during.map((c) => c.endpoint.id)).toEqual([healthy.id, healthy.id, healthy.id]);
        for (const c of during) await delivered(c, NOW + 39);
        // From the end of the pause, one attempt at a time while it is failing.
        const probe = await s.webhooks.claimDue(NOW + 40, NOW + 40 + LEASE, caps);
        expect(probe.map((c) => c.endpoint.id)).toEqual([slow.id]);
        expect(await s.webhooks.claimDue(NOW + 41, NOW + 41 + LEASE, caps)).toEqual([]);
        await delivered(probe[0]!, NOW + 42);
        expect(await s.webhooks.getEndpoint(app.id, slow.id)).toMatchObject({
          consecutive_failures: 0,
          paused_until: null,
        });
        const after = await s.webhooks.claimDue(NOW + 43, NOW + 43 + LEASE, caps);
        expect(after.map((c) => c.endpoint.id)).toEqual([slow.id, slow.id, slow.id]);
      } finally {
        await cleanUp();
      }
    });

    it("claims a delivery from the second it is due, never for a disabled endpoint, and keeps an endpoint's fields", async () => {
      try {
        const { s, app, endpoints } = await setup(1);
        await events(s, app.id, 2);
        expect(await s.webhooks.getEndpoint(app.id, endpoints[0]!.id)).toEqual(endpoints[0]);
        // Due from its second on: the event of NOW, not yet the one of NOW + 1.
        const due = await s.webhooks.claimDue(NOW, NOW + LEASE, wide);
        expect(due.filter((c) => c.delivery.app_id === app.id).map((c) => c.event.created_at)).toEqual([NOW]);
        expect(await s.webhooks.disableEndpoint(app.id, endpoints[0]!.id, NOW + 1)).toBe(true);
        const claimed = await s.webhooks.claimDue(NOW + 5, NOW + 5 + LEASE, wide);
        expect(claimed.filter((c) => c.delivery.app_id === app.id)).toEqual([]);
      } finally {
        await cleanUp();
      }
    });
  });
}
