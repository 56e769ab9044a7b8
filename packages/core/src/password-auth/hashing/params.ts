import { z } from '@hono/zod-openapi';

/**
 * Argon2id's three costs. Bounds keep a setting from asking for more than a server can give one
 * hash (1 GiB, 20 passes, 16 lanes) or less than RFC 9106 allows (8 KiB per lane).
 */
export const argon2ParamsSchema = z
  .strictObject({
    memoryKiB: z.int().min(8).max(1_048_576),
    iterations: z.int().min(1).max(20),
    parallelism: z.int().min(1).max(16),
  })
  .refine((p) => p.memoryKiB >= 8 * p.parallelism, {
    message: 'memoryKiB must be at least 8 × parallelism (RFC 9106)',
    path: ['memoryKiB'],
  });

export type Argon2Params = z.infer<typeof argon2ParamsSchema>;

/** OWASP's Password Storage Cheat Sheet, Argon2id's first option: 19 MiB, 2 passes, 1 lane. */
export const OWASP_ARGON2ID: Argon2Params = Object.freeze({
  memoryKiB: 19_456,
  iterations: 2,
  parallelism: 1,
});

/** Salt and tag lengths of Latchkey's own hashes (RFC 9106 recommends a 16-byte salt). */
export const SALT_BYTES = 16;
export const TAG_BYTES = 32;
