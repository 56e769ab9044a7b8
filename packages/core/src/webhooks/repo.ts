import type { EventRecord } from '../events/repo.js';
import type { EventType } from '../shared/event-types.js';

export interface WebhookEndpointRecord {
  id: string;
  app_id: string;
  url: string;
  event_types: EventType[];
  /** The `whsec_…` signing secret, sealed by the KeyVault. */
  sealed_secret: string;
  status: 'enabled' | 'disabled';
  disabled_at: number | null;
  created_at: number;
  /** Attempts that failed in a row (reset by a 2xx); while above 0, one attempt at a time. */
  consecutive_failures: number;
  /** After a failed attempt, none of the endpoint's deliveries is claimed before this time. */
  paused_until: number | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event owed to one endpoint. */
export interface WebhookDeliveryRecord {
  event_id: string;
  endpoint_id: string;
  app_id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number;
  /** While a worker holds the delivery, no other may claim it. */
  lease_until: number | null;
  last_attempt_at: number | null;
  delivered_at: number | null;
}

/** One try at a delivery, kept for the App to inspect: never a body, only the outcome. */
export interface WebhookAttemptRecord {
  id: string;
  app_id: string;
  event_id: string;
  endpoint_id: string;
  attempted_at: number;
  /** The receiver's HTTP status, null when there was no response. */
  status_code: number | null;
  /** Why it failed without a response (timeout, refused address), null otherwise. */
  error: string | null;
  duration_ms: number;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  delivery: WebhookDeliveryRecord;
  event: EventRecord;
  endpoint: WebhookEndpointRecord;
}

/**
 * Where an attempt leaves its delivery, and its endpoint: a delivery resets the endpoint's
 * failure count; anything else adds one to it and pauses the endpoint until at least
 * `endpoint_paused_until` (a later pause already set stands).
 */
export type DeliveryOutcome =
  | { status: 'delivered'; at: number }
  | { status: 'pending'; next_attempt_at: number; endpoint_paused_until: number }
  | { status: 'failed'; endpoint_paused_until: number };

/** How much one claim may hand out, so one App's backlog or slow endpoints never take every slot. */
export interface ClaimLimits {
  /** Most deliveries this claim returns. */
  limit: number;
  /** Most deliveries of one App leased at once, counting live leases held by any worker. */
  perApp: number;
  /** Most deliveries to one endpoint leased at once (1 while the endpoint is failing). */
  perEndpoint: number;
}

export interface WebhookRepo {
  insertEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  getEndpoint(appId: string, endpointId: string): Promise<WebhookEndpointRecord | null>;
  listEndpoints(appId: string): Promise<WebhookEndpointRecord[]>;
  /** Deletes the endpoint with its deliveries and attempts; returns it, or null when missing. */
  deleteEndpoint(appId: string, endpointId: string): Promise<WebhookEndpointRecord | null>;
  /** Marks an enabled endpoint disabled (its pending deliveries fail); false when it was not enabled. */
  disableEndpoint(appId: string, endpointId: string, now: number): Promise<boolean>;
  /**
   * Atomic across processes, and the one method not scoped by App (the delivery worker serves
   * them all): leases, until `leaseUntil`, up to `limit` pending deliveries due at `now` whose
   * lease has lapsed, to enabled endpoints not paused at `now`. Two workers never hold one
   * delivery, and the caps hold across workers: an App never has more than `perApp` live leases
   * nor an endpoint more than `perEndpoint` (1 while its `consecutive_failures` is above 0).
   * Fair: oldest due first within an endpoint, endpoints of an App in turn, and every App's
   * n-th delivery before any App's (n+1)-th, so a backlog in one App never crowds out another.
   */
  claimDue(now: number, leaseUntil: number, limits: ClaimLimits): Promise<ClaimedDelivery[]>;
  /**
   * Records the attempt, moves its delivery to `outcome` releasing the lease, and updates the
   * endpoint's failure count and pause as `outcome` says.
   */
  recordAttempt(attempt: WebhookAttemptRecord, outcome: DeliveryOutcome): Promise<void>;
  listDeliveries(appId: string, eventId: string): Promise<WebhookDeliveryRecord[]>;
  listAttempts(appId: string, eventId: string): Promise<WebhookAttemptRecord[]>;
  /**
   * Makes the event due again now, with fresh attempts, for each enabled endpoint subscribed to
   * its type (adding deliveries for endpoints created since), or only `endpointId`. Returns how
   * many are due.
   */
  redeliver(event: EventRecord, now: number, endpointId?: string): Promise<number>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    webhooks: WebhookRepo;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    whep: true;
    whatt: true;
  }
}
