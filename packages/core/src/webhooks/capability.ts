import { defineCapability } from '../capability.js';
import { VERSION } from '../version.js';
import { webhookDelivery } from './delivery.js';
import { registerWebhookRoutes } from './routes.js';
import { webhookService } from './service.js';
import { webhookTransport } from './transport.js';

/**
 * Webhook endpoints, and their delivery: `webhooks.startDelivery()` in each server process
 * (any number may run on one database), or `webhooks.deliverDue()` from a job runner.
 */
export const webhooksCapability = defineCapability({
  name: 'webhooks',
  needs: [],
  storage: ['webhooks'],
  errors: [
    'invalid_webhook_url',
    'storage_unavailable',
    'webhook_endpoint_not_found',
    'webhook_url_not_allowed',
  ],
  service: ({ kernel, options }) => {
    const { allowPrivateTargets, fetch, lookup, timeoutMs, maxInFlightPerApp, maxInFlightPerEndpoint } =
      options.webhooks;
    const delivery = webhookDelivery(kernel, {
      send: webhookTransport({ allowPrivateTargets, fetch, lookup }),
      timeoutMs,
      maxInFlightPerApp,
      maxInFlightPerEndpoint,
      userAgent: `Latchkey-Webhooks/${VERSION}`,
    });
    return {
      ...webhookService(kernel, { allowPrivateTargets }),
      deliverDue: delivery.deliverDue,
      startDelivery: delivery.start,
    };
  },
  routes: registerWebhookRoutes,
});
