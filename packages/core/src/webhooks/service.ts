import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { WebhookEndpointRecord } from './repo.js';
import type { CreateEndpointInput, EndpointView } from './schema.js';
import { newWebhookSecret } from './signature.js';
import { checkWebhookUrl } from './url-policy.js';

export type WebhookService = ReturnType<typeof webhookService>;

const endpointView = (e: WebhookEndpointRecord): EndpointView => ({
  endpoint_id: e.id,
  url: e.url,
  event_types: e.event_types,
  status: e.status,
  disabled_at: e.disabled_at,
  created_at: e.created_at,
});

export function webhookService(k: Kernel, { allowPrivateTargets }: { allowPrivateTargets: boolean }) {
  return {
    /** Registers an endpoint; the signing secret is in this answer only. */
    async createEndpoint(appId: string, input: CreateEndpointInput) {
      await k.app(appId); // app_not_found for an App that does not exist
      const url = checkWebhookUrl(input.url, allowPrivateTargets);
      const secret = newWebhookSecret(k.random.bytes(24));
      const record: WebhookEndpointRecord = {
        id: k.id('whep'),
        app_id: appId,
        url,
        event_types: [...new Set(input.event_types)],
        sealed_secret: await k.vault.seal(new TextEncoder().encode(secret), appId),
        status: 'enabled',
        disabled_at: null,
        created_at: k.now(),
        consecutive_failures: 0,
        paused_until: null,
      };
      await k.storage.webhooks.insertEndpoint(record);
      return { ...endpointView(record), secret };
    },

    async listEndpoints(appId: string) {
      return { endpoints: (await k.storage.webhooks.listEndpoints(appId)).map(endpointView) };
    },

    async deleteEndpoint(appId: string, endpointId: string) {
      const removed = await k.storage.webhooks.deleteEndpoint(appId, endpointId);
      if (!removed) throw new LatchkeyError('webhook_endpoint_not_found');
      return { endpoint_id: removed.id };
    },
  };
}
