import { z } from '@hono/zod-openapi';
import { EVENT_TYPES } from '../shared/event-types.js';
import { nextCursorSchema, pageQueryFields } from '../shared/page.js';

export const eventTypeSchema = z.enum(EVENT_TYPES).openapi('EventType');

export const eventSchema = z
  .object({
    id: z.string(),
    type: eventTypeSchema,
    created_at: z.int().openapi({ description: 'Unix seconds' }),
    app_id: z.string(),
    data: z.record(z.string(), z.unknown()),
  })
  .openapi('Event');

export const eventIdParamsSchema = z.object({ event_id: z.string().min(1).max(100) });

export const listEventsQuerySchema = z.strictObject({
  type: eventTypeSchema.optional(),
  ...pageQueryFields,
});

export const listEventsResponseSchema = z
  .object({
    events: z.array(eventSchema),
    next_cursor: nextCursorSchema('the next page (older events)'),
  })
  .openapi('ListEventsResponse');

const attemptSchema = z.object({
  attempted_at: z.int(),
  status_code: z.int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.int(),
});

export const eventDetailSchema = z
  .object({
    event: eventSchema,
    deliveries: z.array(
      z.object({
        endpoint_id: z.string(),
        status: z.enum(['pending', 'delivered', 'failed']),
        attempts: z.int(),
        next_attempt_at: z.int().nullable(),
        delivered_at: z.int().nullable(),
        attempt_log: z.array(attemptSchema),
      }),
    ),
  })
  .openapi('EventDetail');

export const redeliverResponseSchema = z
  .object({ event_id: z.string(), deliveries_due: z.int() })
  .openapi('RedeliverResponse');

export const redeliverRequestSchema = z
  .strictObject({
    endpoint_id: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'Only to this endpoint; to every subscribed endpoint when absent.' }),
  })
  .openapi('RedeliverRequest');
