import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { EventType } from '../shared/event-types.js';
import type { EventHooks } from './hooks.js';
import type { EventRecord } from './repo.js';

export type EventService = ReturnType<typeof eventService>;

const eventView = (e: EventRecord) => ({
  id: e.id,
  type: e.type,
  created_at: e.created_at,
  app_id: e.app_id,
  data: e.data,
});

export function eventService(k: Kernel, hooks: EventHooks) {
  const requireEvent = async (appId: string, eventId: string) => {
    const event = await k.storage.events.get(appId, eventId);
    if (!event) throw new LatchkeyError('event_not_found');
    return event;
  };
  return {
    /** Listens in-process: `handler` runs after each matching event's transaction commits. */
    on: hooks.on,

    /** Newest first; `cursor` is the previous page's `next_cursor`. */
    async list(
      appId: string,
      query: { type?: EventType | undefined; limit?: number | undefined; cursor?: string | undefined },
    ) {
      const limit = query.limit ?? 100;
      const rows = await k.storage.events.list(appId, {
        before: query.cursor,
        type: query.type,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      return {
        events: page.map(eventView),
        next_cursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
      };
    },

    /** The event with each endpoint's delivery and the log of its attempts. */
    async get(appId: string, eventId: string) {
      const event = await requireEvent(appId, eventId);
      const [deliveries, attempts] = await Promise.all([
        k.storage.webhooks.listDeliveries(appId, eventId),
        k.storage.webhooks.listAttempts(appId, eventId),
      ]);
      return {
        event: eventView(event),
        deliveries: deliveries.map((d) => ({
          endpoint_id: d.endpoint_id,
          status: d.status,
          attempts: d.attempts,
          next_attempt_at: d.status === 'pending' ? d.next_attempt_at : null,
          delivered_at: d.delivered_at,
          attempt_log: attempts
            .filter((a) => a.endpoint_id === d.endpoint_id)
            .map((a) => ({
              attempted_at: a.attempted_at,
              status_code: a.status_code,
              error: a.error,
              duration_ms: a.duration_ms,
            })),
        })),
      };
    },

    /** Sends the event again, now, to every enabled endpoint subscribed to its type (or just `endpointId`). */
    async redeliver(appId: string, eventId: string, endpointId?: string) {
      const event = await requireEvent(appId, eventId);
      if (endpointId && !(await k.storage.webhooks.getEndpoint(appId, endpointId)))
        throw new LatchkeyError('webhook_endpoint_not_found');
      return {
        event_id: event.id,
        deliveries_due: await k.storage.webhooks.redeliver(event, k.now(), endpointId),
      };
    },
  };
}
