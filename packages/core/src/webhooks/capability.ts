import { defineCapability } from '../capability.js';
import { VERSION } from '../version.js';
import { webhookDelivery } from './delivery.js';
import { webhooksErrors } from './errors.js';
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
  errors: webhooksErrors,
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
