import { z } from '@hono/zod-openapi';

/** The query fields of every paged list. */
export const pageQueryFields = {
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
};

/** A page's `next_cursor`; `next` says what the next page holds where that helps. */
export const nextCursorSchema = (next = 'the next page') =>
  z
    .string()
    .nullable()
    .openapi({ description: `Pass as \`cursor\` for ${next}; null on the last.` });
