import { z } from 'zod';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import { endpointPauseSeconds, nextAttemptAt } from './backoff.js';
import type { ClaimedDelivery, DeliveryOutcome } from './repo.js';
import { signWebhook } from './signature.js';
import type { WebhookSend } from './transport.js';

export interface DeliveryOptions {
  /** Sends one POST to the target it checked (transport.ts). */
  send: WebhookSend;
  timeoutMs: number;
  userAgent: string;
  /** Attempts one App may have in flight at once, across every worker on the storage. */
  maxInFlightPerApp: number;
  /** Attempts one endpoint may have in flight at once (1 while it is failing). */
  maxInFlightPerEndpoint: number;
}

const startDeliveryOptionsSchema = z.object({
  /** How often to look for due deliveries when no attempt has settled meanwhile. */
  intervalMs: z.int().min(10).max(3_600_000).default(1000),
  /** Attempts this process keeps in flight at most. */
  concurrency: z.int().min(1).max(10_000).default(50),
});

export type StartDeliveryOptions = z.input<typeof startDeliveryOptionsSchema>;

export type WebhookDelivery = ReturnType<typeof webhookDelivery>;

/**
 * Sends what is due. Any number of processes may run it on one database: each delivery is
 * leased by one worker at a time (`claimDue`), so an event goes to an endpoint once per attempt.
 * A worker that dies mid-attempt leaves its lease to lapse, and the delivery is tried again.
 * The leases are also the in-flight count the per-App and per-endpoint caps are held to, so the
 * caps bound an App across every process, and a slow App holds only its share of the slots.
 */
export function webhookDelivery(k: Kernel, options: DeliveryOptions) {
  const leaseSeconds = Math.ceil(options.timeoutMs / 1000) + 30;

  async function attempt({ delivery, event, endpoint }: ClaimedDelivery): Promise<void> {
    const started = Date.now();
    const timestamp = k.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const secret = new TextDecoder().decode(await k.vault.open(endpoint.sealed_secret, endpoint.app_id));
      const body = JSON.stringify({
        id: event.id,
        type: event.type,
        created_at: event.created_at,
        app_id: event.app_id,
        data: event.data,
      });
      statusCode = await options.send({
        url: endpoint.url,
        body,
        signal: AbortSignal.timeout(options.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': options.userAgent,
          'webhook-id': event.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(secret, event.id, timestamp, body),
        },
      });
    } catch (err) {
      error = failureReason(err);
    }
    const now = k.now();
    const succeeded = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const attempts = delivery.attempts + 1;
    const retryAt = succeeded ? null : nextAttemptAt(attempts, now);
    const pausedUntil = now + endpointPauseSeconds(endpoint.consecutive_failures + 1);
    const outcome: DeliveryOutcome = succeeded
      ? { status: 'delivered', at: now }
      : retryAt === null
        ? { status: 'failed', endpoint_paused_until: pausedUntil }
        : { status: 'pending', next_attempt_at: retryAt, endpoint_paused_until: pausedUntil };
    await k.storage.webhooks.recordAttempt(
      {
        id: k.id('whatt'),
        app_id: endpoint.app_id,
        event_id: event.id,
        endpoint_id: endpoint.id,
        attempted_at: timestamp,
        status_code: statusCode,
        error,
        duration_ms: Date.now() - started,
      },
      outcome,
    );
    if (outcome.status === 'failed') await disable(endpoint.app_id, endpoint.id, endpoint.url);
  }

  async function disable(appId: string, endpointId: string, url: string) {
    await k.storage.transaction(async (tx) => {
      if (await tx.webhooks.disableEndpoint(appId, endpointId, k.now()))
        await k.emit(
          { app_id: appId, type: 'webhook_endpoint.disabled', data: { endpoint_id: endpointId, url } },
          tx,
        );
    });
  }

  function claim(limit: number): Promise<ClaimedDelivery[]> {
    const now = k.now();
    return k.storage.webhooks.claimDue(now, now + leaseSeconds, {
      limit,
      perApp: options.maxInFlightPerApp,
      perEndpoint: options.maxInFlightPerEndpoint,
    });
  }

  /**
   * Sends up to `limit` due deliveries at once (within the per-App and per-endpoint caps), each
   * settling on its own; resolves with how many were tried, once all of them have been.
   */
  async function deliverDue(limit = 50): Promise<number> {
    const claimed = await claim(limit);
    const settled = await Promise.allSettled(claimed.map(attempt));
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return claimed.length;
  }

  /**
   * Keeps up to `concurrency` attempts in flight: claims for the free slots at start, every
   * `intervalMs`, and each time an attempt settles, so no attempt waits for another (a batch
   * no longer waits for its slowest receiver). The returned function stops claiming and
   * resolves once every attempt in flight has settled.
   */
  function start(startOptions: StartDeliveryOptions = {}): () => Promise<void> {
    const { intervalMs, concurrency } = startDeliveryOptionsSchema.parse(startOptions);
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const inFlight = new Set<Promise<void>>();
    let claiming: Promise<void> | undefined;
    let claimAgain = false;

    const report = (err: unknown) => {
      if (!(err instanceof LatchkeyError && err.errorType === 'storage_unavailable'))
        k.logger.error({ err }, 'latchkey: webhook delivery failed');
    };

    const launch = (claimed: ClaimedDelivery) => {
      const settled: Promise<void> = attempt(claimed)
        .catch(report)
        .finally(() => {
          inFlight.delete(settled);
          fill();
        });
      inFlight.add(settled);
    };

    // One claim at a time per process: a slot freed meanwhile is claimed for right after.
    const fill = () => {
      if (stopped) return;
      if (claiming) {
        claimAgain = true;
        return;
      }
      const free = concurrency - inFlight.size;
      if (free <= 0) return;
      claimAgain = false;
      claiming = claim(free)
        .then((claimed) => claimed.forEach(launch), report)
        .finally(() => {
          claiming = undefined;
          if (claimAgain) fill();
        });
    };

    const poll = () => {
      fill();
      if (!stopped) timer = setTimeout(poll, intervalMs);
    };
    poll();
    return async () => {
      stopped = true;
      clearTimeout(timer);
      await claiming;
      await Promise.all(inFlight);
    };
  }

  return { deliverDue, start };
}

/** A short reason, never the URL or the error text (which could echo a secret-bearing URL). */
function failureReason(err: unknown): string {
  if (err instanceof Error && err.message === 'address_not_allowed') return 'address_not_allowed';
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'timeout';
  return 'connection_failed';
}
