import type { z } from '@hono/zod-openapi';

/** A required JSON request body with this schema. */
export const jsonBody = <S extends z.ZodType>(schema: S) => ({
  body: { required: true, content: { 'application/json': { schema } } },
});

/** A 200 JSON response with this schema. */
export const jsonResponse = <S extends z.ZodType>(description: string, schema: S) => ({
  description,
  content: { 'application/json': { schema } },
});
