import { z } from '@hono/zod-openapi';
import { webauthnCredentialViewSchema } from '../shared/credential-view.js';

export const userIdSchema = z.string().min(1).max(100);

export const userNameSchema = z.strictObject({
  first_name: z.string().max(200).optional(),
  middle_name: z.string().max(200).optional(),
  last_name: z.string().max(200).optional(),
});

export const createUserRequestSchema = z
  .strictObject({
    email: z.string().min(1).max(320).optional().openapi({ example: 'ada@example.com' }),
    phone_number: z.string().min(1).max(40).optional().openapi({ example: '+14155550100' }),
    name: userNameSchema.optional(),
  })
  .openapi('CreateUserRequest');

export type CreateUserRequest = z.infer<typeof createUserRequestSchema>;

const emailViewSchema = z.object({
  email_id: z.string(),
  email: z.string(),
  verified: z.boolean(),
});

const phoneNumberViewSchema = z.object({
  phone_number_id: z.string(),
  phone_number: z.string(),
  verified: z.boolean(),
});

/** A provider account linked to the user (oauth/): its issuer and subject name it. */
export const oauthLinkViewSchema = z
  .object({
    link_id: z.string(),
    provider_id: z.string(),
    issuer: z.string(),
    subject: z.string(),
    email: z.string().nullable(),
    email_verified: z.boolean(),
    created_at: z.int(),
  })
  .openapi('OAuthLink');

export type OAuthLinkView = z.infer<typeof oauthLinkViewSchema>;

export const userSchema = z
  .object({
    user_id: z.string(),
    name: z.object({
      first_name: z.string(),
      middle_name: z.string(),
      last_name: z.string(),
    }),
    status: z.enum(['active', 'pending']),
    emails: z.array(emailViewSchema),
    phone_numbers: z.array(phoneNumberViewSchema),
    webauthn_credentials: z.array(webauthnCredentialViewSchema),
    totps: z.array(z.object({ totp_id: z.string(), verified: z.boolean() })),
    wallets: z.array(
      z.object({
        wallet_id: z.string(),
        wallet_type: z.string(),
        public_address: z.string(),
        is_default: z.boolean(),
      }),
    ),
    oauth_links: z.array(oauthLinkViewSchema),
    created_at: z.int(),
    updated_at: z.int(),
  })
  .openapi('User');

export type User = z.infer<typeof userSchema>;

export const createUserResponseSchema = z
  .object({
    user_id: z.string(),
    email_id: z.string().optional(),
    phone_number_id: z.string().optional(),
    user: userSchema,
  })
  .openapi('CreateUserResponse');

export type CreateUserResponse = z.infer<typeof createUserResponseSchema>;

export const removedMethodResponseSchema = z
  .object({ message: z.string(), user_id: z.string() })
  .openapi('RemovedMethodResponse');
