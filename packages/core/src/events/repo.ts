import type { EventType } from '../shared/event-types.js';

/** Something that happened in an App, kept as the outbox webhooks deliver from. */
export interface EventRecord {
  id: string;
  app_id: string;
  type: EventType;
  data: Record<string, unknown>;
  created_at: number;
}

export interface EventListQuery {
  /** Only events with an id below this one (the previous page's last). */
  before?: string | undefined;
  type?: EventType | undefined;
  limit: number;
}

export interface EventRepo {
  /**
   * Atomic: stores the event and, in the same statement or transaction, one pending delivery
   * due at `created_at` for each enabled endpoint of its App subscribed to its type. Called in
   * the transaction of the change the event reports, so both land or neither does.
   */
  insert(event: EventRecord): Promise<void>;
  get(appId: string, eventId: string): Promise<EventRecord | null>;
  /** Newest first. */
  list(appId: string, query: EventListQuery): Promise<EventRecord[]>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    events: EventRepo;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    evt: true;
  }
}
