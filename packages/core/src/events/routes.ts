import { createRoute } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import {
  eventDetailSchema,
  eventIdParamsSchema,
  listEventsQuerySchema,
  listEventsResponseSchema,
  redeliverRequestSchema,
  redeliverResponseSchema,
} from './schema.js';
import type { EventService } from './service.js';

const common = { tags: ['events'], ...policy({ key: 'secret' }) };

const listEvents = createRoute({
  ...common,
  method: 'get',
  path: '/v1/events',
  summary: "The App's events, newest first, a page at a time",
  request: { query: listEventsQuerySchema },
  responses: { 200: jsonResponse('A page of events', listEventsResponseSchema), ...errorResponses(403) },
});

const getEvent = createRoute({
  ...common,
  method: 'get',
  path: '/v1/events/{event_id}',
  summary: 'An event with its webhook deliveries and their attempts',
  request: { params: eventIdParamsSchema },
  responses: { 200: jsonResponse('The event', eventDetailSchema), ...errorResponses(403, 404) },
});

const redeliver = createRoute({
  ...common,
  method: 'post',
  path: '/v1/events/{event_id}/redeliver',
  summary: 'Send an event again to every enabled endpoint subscribed to its type',
  request: { params: eventIdParamsSchema, ...jsonBody(redeliverRequestSchema) },
  responses: {
    200: jsonResponse('How many deliveries are due', redeliverResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

export function registerEventRoutes(app: HttpApp, events: EventService) {
  app.openapi(listEvents, async (c) => c.json(await events.list(c.get('app').id, c.req.valid('query')), 200));
  app.openapi(getEvent, async (c) =>
    c.json(await events.get(c.get('app').id, c.req.valid('param').event_id), 200),
  );
  app.openapi(redeliver, async (c) => {
    const { endpoint_id } = c.req.valid('json');
    return c.json(await events.redeliver(c.get('app').id, c.req.valid('param').event_id, endpoint_id), 200);
  });
}
