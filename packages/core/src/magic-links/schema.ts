import { z } from '@hono/zod-openapi';
import { issuedSessionSchema, sessionFieldsSchema } from '../sessions/schema.js';
import { deviceFingerprintSchema } from '../shared/device-fingerprint.js';

const expiration = z
  .int()
  .min(5)
  .max(10_080)
  .optional()
  .openapi({ description: 'Minutes the link works, 5–10080; 60 when absent.' });

const redirectUrl = z.string().min(1).max(2000);

export const magicLinkLoginOrCreateRequestSchema = z
  .strictObject({
    email: z.string().min(1).max(320),
    login_redirect_url: redirectUrl
      .optional()
      .openapi({ description: "Where an existing user's link leads; the App's default when absent." }),
    signup_redirect_url: redirectUrl
      .optional()
      .openapi({ description: "Where a new user's link leads; the App's default when absent." }),
    login_expiration_minutes: expiration,
    signup_expiration_minutes: expiration,
    verification_required: z.boolean().optional().openapi({
      description: 'A user created by this call stays `pending` until the link is authenticated.',
    }),
    device_fingerprint: deviceFingerprintSchema.optional(),
  })
  .openapi('MagicLinkLoginOrCreateRequest');

export type MagicLinkLoginOrCreateRequest = z.infer<typeof magicLinkLoginOrCreateRequestSchema>;

export const magicLinkLoginOrCreateResponseSchema = z
  .object({ user_id: z.string(), user_created: z.boolean(), email_id: z.string() })
  .openapi('MagicLinkLoginOrCreateResponse');

export const magicLinkAuthenticateRequestSchema = z
  .strictObject({
    token: z.string().min(1).max(200),
    device_fingerprint: deviceFingerprintSchema.optional(),
    ...sessionFieldsSchema,
  })
  .openapi('MagicLinkAuthenticateRequest');

export type MagicLinkAuthenticateRequest = z.infer<typeof magicLinkAuthenticateRequestSchema>;

export const magicLinkAuthenticateResponseSchema = z
  .object({
    user_id: z.string(),
    email_id: z.string(),
    method_id: z.string(),
    link_type: z
      .enum(['login', 'signup'])
      .openapi({ description: '`signup` for a registration link, `login` otherwise.' }),
    ...issuedSessionSchema,
  })
  .openapi('MagicLinkAuthenticateResponse');

export type MagicLinkAuthenticateResponse = z.infer<typeof magicLinkAuthenticateResponseSchema>;
