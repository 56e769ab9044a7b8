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

export type DeliveryOutcome =
  | { status: 'delivered'; at: number }
  | { status: 'pending'; next_attempt_at: number }
  | { status: 'failed' };

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
   * them all): leases up to `limit` pending deliveries due at `now` whose lease has lapsed, to
   * enabled endpoints, oldest due first, until `leaseUntil`. Two workers never hold one delivery.
   */
  claimDue(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]>;
  /** Records the attempt and moves its delivery to `outcome`, releasing the lease. */
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
