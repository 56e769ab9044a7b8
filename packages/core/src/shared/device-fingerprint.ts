import { z } from '@hono/zod-openapi';

/**
 * Who asked for a code, a link or a session: compared at verify when the App requires it, and
 * recorded on the session a sign-in creates.
 */
export const deviceFingerprintSchema = z
  .strictObject({
    ip: z.string().min(1).max(100).optional(),
    user_agent: z.string().min(1).max(1000).optional(),
  })
  .openapi('DeviceFingerprint');

// An interface, so that declarations and the API report name it rather than spell it out.
export interface DeviceFingerprint extends z.infer<typeof deviceFingerprintSchema> {}
