import { z } from '@hono/zod-openapi';

/** An origin exactly as a browser sends it: scheme, host, and the port only when not the default. */
export const originSchema = z
  .string()
  .max(300)
  .refine((v) => URL.canParse(v) && new URL(v).origin === v, {
    message: 'an origin is scheme://host[:port], without a path or trailing slash',
  });
