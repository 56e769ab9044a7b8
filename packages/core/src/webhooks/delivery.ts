import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import { nextAttemptAt } from './backoff.js';
import type { ClaimedDelivery, DeliveryOutcome } from './repo.js';
import { signWebhook } from './signature.js';
import type { WebhookSend } from './transport.js';

export interface DeliveryOptions {
  /** Sends one POST to the target it checked (transport.ts). */
  send: WebhookSend;
  timeoutMs: number;
  userAgent: string;
}

export type WebhookDelivery = ReturnType<typeof webhookDelivery>;

/**
 * Sends what is due. Any number of processes may run it on one database: each delivery is
 * leased by one worker at a time (`claimDue`), so an event goes to an endpoint once per attempt.
 * A worker that dies mid-attempt leaves its lease to lapse, and the delivery is tried again.
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
    const outcome: DeliveryOutcome = succeeded
      ? { status: 'delivered', at: now }
      : retryAt === null
        ? { status: 'failed' }
        : { status: 'pending', next_attempt_at: retryAt };
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

  /** Sends up to `limit` due deliveries at once; resolves with how many were tried. */
  async function deliverDue(limit = 50): Promise<number> {
    const now = k.now();
    const claimed = await k.storage.webhooks.claimDue(now, now + leaseSeconds, limit);
    await Promise.all(claimed.map(attempt));
    return claimed.length;
  }

  /** Polls every `intervalMs` until the returned function is called (it resolves once idle). */
  function start({ intervalMs = 1000 }: { intervalMs?: number } = {}): () => Promise<void> {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running: Promise<void> = Promise.resolve();
    const tick = () => {
      running = (async () => {
        try {
          while (!stopped && (await deliverDue()) > 0) {}
        } catch (err) {
          if (!(err instanceof LatchkeyError && err.errorType === 'storage_unavailable'))
            console.error('latchkey: webhook delivery failed:', err);
        }
        if (!stopped) timer = setTimeout(tick, intervalMs);
      })();
    };
    tick();
    return async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
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
