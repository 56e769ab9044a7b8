import type { ClaimLimits, EventRecord, EventRepo, WebhookDeliveryRecord, WebhookRepo } from '@latchkey/core';
import { copy, type MemoryState } from './state.js';

const deliveryKey = (eventId: string, endpointId: string) => `${eventId} ${endpointId}`;

function subscribers(state: MemoryState, event: EventRecord) {
  return [...state.webhookEndpoints.values()].filter(
    (e) => e.app_id === event.app_id && e.status === 'enabled' && e.event_types.includes(event.type),
  );
}

const freshDelivery = (event: EventRecord, endpointId: string, due: number): WebhookDeliveryRecord => ({
  event_id: event.id,
  endpoint_id: endpointId,
  app_id: event.app_id,
  status: 'pending',
  attempts: 0,
  next_attempt_at: due,
  lease_until: null,
  last_attempt_at: null,
  delivered_at: null,
});

const byDue = (a: WebhookDeliveryRecord, b: WebhookDeliveryRecord) =>
  a.next_attempt_at - b.next_attempt_at || (a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : 0);

const count = (counts: Map<string, number>, key: string) => counts.get(key) ?? 0;

/**
 * The deliveries a claim at `now` may lease, in order, as the Postgres claim picks them: live
 * leases count against each App's and endpoint's cap (an endpoint that is failing gets one),
 * each endpoint gives its oldest due, an App's endpoints take turns, and every App's n-th comes
 * before any App's (n+1)-th.
 */
function fairClaim(state: MemoryState, now: number, { limit, perApp, perEndpoint }: ClaimLimits) {
  const appBusy = new Map<string, number>();
  const endpointBusy = new Map<string, number>();
  const queues = new Map<string, WebhookDeliveryRecord[]>();
  for (const d of state.webhookDeliveries.values()) {
    if (d.status !== 'pending') continue;
    if (d.lease_until !== null && d.lease_until > now) {
      appBusy.set(d.app_id, count(appBusy, d.app_id) + 1);
      endpointBusy.set(d.endpoint_id, count(endpointBusy, d.endpoint_id) + 1);
    } else if (d.next_attempt_at <= now) {
      const queue = queues.get(d.endpoint_id) ?? [];
      queue.push(d);
      queues.set(d.endpoint_id, queue);
    }
  }
  const ranked: Array<{ d: WebhookDeliveryRecord; endpointRank: number }> = [];
  for (const [endpointId, queue] of queues) {
    const e = state.webhookEndpoints.get(endpointId);
    if (e?.status !== 'enabled' || (e.paused_until !== null && e.paused_until > now)) continue;
    const room = (e.consecutive_failures > 0 ? 1 : perEndpoint) - count(endpointBusy, endpointId);
    queue.sort(byDue);
    queue.slice(0, Math.max(room, 0)).forEach((d, i) => void ranked.push({ d, endpointRank: i }));
  }
  ranked.sort(
    (a, b) =>
      a.endpointRank - b.endpointRank ||
      byDue(a.d, b.d) ||
      (a.d.endpoint_id < b.d.endpoint_id ? -1 : a.d.endpoint_id > b.d.endpoint_id ? 1 : 0),
  );
  const taken = new Map<string, number>();
  const picked: Array<{ d: WebhookDeliveryRecord; appRank: number }> = [];
  for (const { d } of ranked) {
    const appRank = count(taken, d.app_id);
    if (appRank >= perApp - count(appBusy, d.app_id)) continue;
    taken.set(d.app_id, appRank + 1);
    picked.push({ d, appRank });
  }
  picked.sort(
    (a, b) =>
      a.appRank - b.appRank ||
      a.d.next_attempt_at - b.d.next_attempt_at ||
      (a.d.app_id < b.d.app_id ? -1 : a.d.app_id > b.d.app_id ? 1 : 0),
  );
  return picked.slice(0, limit).map((p) => p.d);
}

export function memoryEventRepo(state: MemoryState): EventRepo {
  return {
    async insert(event) {
      state.events.set(event.id, copy(event));
      for (const endpoint of subscribers(state, event))
        state.webhookDeliveries.set(
          deliveryKey(event.id, endpoint.id),
          freshDelivery(event, endpoint.id, event.created_at),
        );
    },
    async get(appId, eventId) {
      const event = state.events.get(eventId);
      return event && event.app_id === appId ? copy(event) : null;
    },
    async list(appId, { before, type, limit }) {
      return [...state.events.values()]
        .filter((e) => e.app_id === appId && (!type || e.type === type) && (!before || e.id < before))
        .sort((a, b) => (a.id < b.id ? 1 : -1))
        .slice(0, limit)
        .map(copy);
    },
  };
}

export function memoryWebhookRepo(state: MemoryState): WebhookRepo {
  const ofEvent = <T extends { app_id: string; event_id: string }>(
    rows: Map<string, T>,
    appId: string,
    eventId: string,
  ) => [...rows.values()].filter((r) => r.app_id === appId && r.event_id === eventId).map(copy);
  return {
    async insertEndpoint(endpoint) {
      state.webhookEndpoints.set(endpoint.id, copy(endpoint));
    },
    async getEndpoint(appId, endpointId) {
      const e = state.webhookEndpoints.get(endpointId);
      return e && e.app_id === appId ? copy(e) : null;
    },
    async listEndpoints(appId) {
      return [...state.webhookEndpoints.values()]
        .filter((e) => e.app_id === appId)
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map(copy);
    },
    async deleteEndpoint(appId, endpointId) {
      const e = state.webhookEndpoints.get(endpointId);
      if (!e || e.app_id !== appId) return null;
      state.webhookEndpoints.delete(endpointId);
      for (const [key, d] of state.webhookDeliveries)
        if (d.endpoint_id === endpointId) state.webhookDeliveries.delete(key);
      for (const [id, a] of state.webhookAttempts)
        if (a.endpoint_id === endpointId) state.webhookAttempts.delete(id);
      return copy(e);
    },
    async disableEndpoint(appId, endpointId, now) {
      const e = state.webhookEndpoints.get(endpointId);
      if (!e || e.app_id !== appId || e.status !== 'enabled') return false;
      e.status = 'disabled';
      e.disabled_at = now;
      for (const d of state.webhookDeliveries.values())
        if (d.endpoint_id === endpointId && d.status === 'pending') d.status = 'failed';
      return true;
    },
    async claimDue(now, leaseUntil, limits) {
      return fairClaim(state, now, limits).flatMap((d) => {
        const event = state.events.get(d.event_id);
        const endpoint = state.webhookEndpoints.get(d.endpoint_id);
        if (!event || !endpoint) return [];
        d.lease_until = leaseUntil;
        return [{ delivery: copy(d), event: copy(event), endpoint: copy(endpoint) }];
      });
    },
    async recordAttempt(attempt, outcome) {
      const d = state.webhookDeliveries.get(deliveryKey(attempt.event_id, attempt.endpoint_id));
      if (!d) return;
      state.webhookAttempts.set(attempt.id, copy(attempt));
      d.attempts += 1;
      d.lease_until = null;
      d.last_attempt_at = attempt.attempted_at;
      d.status = outcome.status;
      if (outcome.status === 'delivered') d.delivered_at = outcome.at;
      if (outcome.status === 'pending') d.next_attempt_at = outcome.next_attempt_at;
      const endpoint = state.webhookEndpoints.get(attempt.endpoint_id);
      if (!endpoint) return;
      if (outcome.status === 'delivered') {
        endpoint.consecutive_failures = 0;
        endpoint.paused_until = null;
      } else {
        endpoint.consecutive_failures += 1;
        endpoint.paused_until = Math.max(endpoint.paused_until ?? 0, outcome.endpoint_paused_until);
      }
    },
    async listDeliveries(appId, eventId) {
      return ofEvent(state.webhookDeliveries, appId, eventId);
    },
    async listAttempts(appId, eventId) {
      return ofEvent(state.webhookAttempts, appId, eventId).sort((a, b) => a.attempted_at - b.attempted_at);
    },
    async redeliver(event, now, endpointId) {
      const endpoints = subscribers(state, event).filter((e) => !endpointId || e.id === endpointId);
      for (const endpoint of endpoints)
        state.webhookDeliveries.set(
          deliveryKey(event.id, endpoint.id),
          freshDelivery(event, endpoint.id, now),
        );
      return endpoints.length;
    },
  };
}
