import { z } from '@hono/zod-openapi';
import { EVENT_TYPES } from '../shared/event-types.js';

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
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .openapi({ description: 'Page size, 1–1000; 100 when absent.' }),
  cursor: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: 'The `next_cursor` of the previous page.' }),
});

export const listEventsResponseSchema = z
  .object({
    events: z.array(eventSchema),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: 'Pass as `cursor` for the next page (older events); null on the last.' }),
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
