import { createRoute } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import {
  createdEndpointSchema,
  createEndpointRequestSchema,
  deletedEndpointSchema,
  endpointIdParamsSchema,
  listEndpointsResponseSchema,
} from './schema.js';
import type { WebhookService } from './service.js';

const common = { tags: ['webhooks'], ...policy({ key: 'secret' }) };

const createEndpoint = createRoute({
  ...common,
  method: 'post',
  path: '/v1/webhooks/endpoints',
  summary: 'Register a webhook endpoint; its signing secret is shown only in this answer',
  request: jsonBody(createEndpointRequestSchema),
  responses: {
    200: jsonResponse('The endpoint and its secret', createdEndpointSchema),
    ...errorResponses(403, 413, 415),
  },
});

const listEndpoints = createRoute({
  ...common,
  method: 'get',
  path: '/v1/webhooks/endpoints',
  summary: "The App's webhook endpoints",
  responses: { 200: jsonResponse('The endpoints', listEndpointsResponseSchema), ...errorResponses(403) },
});

const deleteEndpoint = createRoute({
  ...common,
  method: 'delete',
  path: '/v1/webhooks/endpoints/{endpoint_id}',
  summary: 'Remove a webhook endpoint and what it was still owed',
  request: { params: endpointIdParamsSchema },
  responses: { 200: jsonResponse('Removed', deletedEndpointSchema), ...errorResponses(403, 404) },
});

export function registerWebhookRoutes(app: HttpApp, webhooks: WebhookService) {
  app.openapi(createEndpoint, async (c) =>
    c.json(await webhooks.createEndpoint(c.get('app').id, c.req.valid('json')), 200),
  );
  app.openapi(listEndpoints, async (c) => c.json(await webhooks.listEndpoints(c.get('app').id), 200));
  app.openapi(deleteEndpoint, async (c) =>
    c.json(await webhooks.deleteEndpoint(c.get('app').id, c.req.valid('param').endpoint_id), 200),
  );
}
