import type { EventType } from '../shared/event-types.js';
import type { EventRecord } from './repo.js';

export type EventHandler = (event: EventRecord) => void | Promise<void>;

export interface EventHooks {
  /** Calls `handler` for each event of `type` ('*' for all) after its transaction commits. */
  on(type: EventType | '*', handler: EventHandler): () => void;
  notify(events: readonly EventRecord[]): void;
}

/**
 * In-process listeners. A handler runs after the commit, never inside the request's
 * transaction, and its failure is reported, not thrown: the change it reacts to has happened.
 */
export function eventHooks(onError: (err: unknown, event: EventRecord) => void): EventHooks {
  const handlers = new Map<string, Set<EventHandler>>();
  const run = (handler: EventHandler, event: EventRecord) => {
    try {
      Promise.resolve(handler(event)).catch((err: unknown) => onError(err, event));
    } catch (err) {
      onError(err, event);
    }
  };
  return {
    on(type, handler) {
      const set = handlers.get(type) ?? new Set();
      set.add(handler);
      handlers.set(type, set);
      return () => {
        set.delete(handler);
      };
    },
    notify(events) {
      if (handlers.size === 0) return;
      for (const event of events) {
        for (const handler of handlers.get(event.type) ?? []) run(handler, event);
        for (const handler of handlers.get('*') ?? []) run(handler, event);
      }
    },
  };
}
