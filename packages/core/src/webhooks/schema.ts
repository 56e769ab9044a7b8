import { z } from '@hono/zod-openapi';
import { eventTypeSchema } from '../events/schema.js';

export const createEndpointRequestSchema = z
  .strictObject({
    url: z.string().min(1).max(2000),
    event_types: z.array(eventTypeSchema).min(1).max(100),
  })
  .openapi('CreateWebhookEndpointRequest');

export const endpointSchema = z
  .object({
    endpoint_id: z.string(),
    url: z.string(),
    event_types: z.array(eventTypeSchema),
    status: z.enum(['enabled', 'disabled']),
    disabled_at: z.int().nullable(),
    created_at: z.int(),
  })
  .openapi('WebhookEndpoint');

export const createdEndpointSchema = endpointSchema
  .extend({
    secret: z.string().openapi({ description: 'The `whsec_…` signing secret; shown only here.' }),
  })
  .openapi('CreatedWebhookEndpoint');

export const listEndpointsResponseSchema = z
  .object({ endpoints: z.array(endpointSchema) })
  .openapi('ListWebhookEndpointsResponse');

export const endpointIdParamsSchema = z.object({ endpoint_id: z.string().min(1).max(100) });

export const deletedEndpointSchema = z.object({ endpoint_id: z.string() }).openapi('DeletedWebhookEndpoint');

export type CreateEndpointInput = z.infer<typeof createEndpointRequestSchema>;
export type EndpointView = z.infer<typeof endpointSchema>;
