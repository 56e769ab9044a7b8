import { z } from '@hono/zod-openapi';
import { issuedSessionSchema, sessionFieldsSchema } from '../sessions/schema.js';
import { deviceFingerprintSchema } from '../shared/device-fingerprint.js';
import { PROVIDER_ID } from './provider-settings.js';

/** A PKCE S256 challenge or verifier: base64url, 43 to 128 characters (RFC 7636). */
const pkceValue = z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/);

export const providerParamsSchema = z.object({
  provider_id: z
    .string()
    .regex(PROVIDER_ID)
    .openapi({ param: { name: 'provider_id', in: 'path' } }),
});

export const startQuerySchema = z.strictObject({
  public_token: z.string().min(1).max(200).optional().openapi({
    description:
      "The App's public token, here because a browser navigation carries no Authorization header (never the secret key).",
  }),
  login_redirect_url: z.string().min(1).max(2000).optional(),
  signup_redirect_url: z.string().min(1).max(2000).optional(),
  code_challenge: pkceValue.optional().openapi({
    description:
      "The browser's own PKCE challenge (S256): `oauth/authenticate` then needs its `code_verifier`.",
  }),
  code_challenge_method: z.literal('S256').optional(),
  session_token: z.string().min(1).max(200).optional().openapi({
    description: "A signed-in user's session: the provider account is linked to that user.",
  }),
  session_jwt: z.string().min(1).max(8000).optional(),
});

export type StartQuery = z.infer<typeof startQuerySchema>;

/** What the provider sends back; only `state` is read before it is known to be Latchkey's. */
export const callbackParamsSchema = z
  .object({
    state: z.string().max(500).optional(),
    code: z.string().max(4000).optional(),
    error: z.string().max(200).optional(),
    error_description: z.string().max(2000).optional(),
  })
  .catchall(z.string().max(4000));

export const oauthAuthenticateRequestSchema = z
  .strictObject({
    token: z.string().min(1).max(200),
    code_verifier: pkceValue.optional(),
    device_fingerprint: deviceFingerprintSchema.optional(),
    ...sessionFieldsSchema,
  })
  .openapi('OAuthAuthenticateRequest');

export type OAuthAuthenticateRequest = z.infer<typeof oauthAuthenticateRequestSchema>;

export const oauthAuthenticateResponseSchema = z
  .object({
    user_id: z.string(),
    provider_id: z.string(),
    provider_subject: z.string(),
    link_id: z.string(),
    user_created: z.boolean(),
    ...issuedSessionSchema,
  })
  .openapi('OAuthAuthenticateResponse');

export type OAuthAuthenticateResponse = z.infer<typeof oauthAuthenticateResponseSchema>;

export const linkParamsSchema = z.object({
  link_id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'link_id', in: 'path' } }),
});
