import { z } from '@hono/zod-openapi';
import { MAX_PASSWORD_LENGTH } from '../passwords/schema.js';
import { issuedSessionSchema, sessionFieldsSchema } from '../sessions/schema.js';
import { deviceFingerprintSchema } from '../shared/device-fingerprint.js';
import { importedHashSchema } from './hashing/index.js';

const email = z.string().min(1).max(320);
const password = z
  .string()
  .min(1)
  .max(MAX_PASSWORD_LENGTH)
  .openapi({ description: `1 to ${MAX_PASSWORD_LENGTH} characters; never stored or logged.` });

export const createPasswordRequestSchema = z
  .strictObject({
    email,
    password,
    device_fingerprint: deviceFingerprintSchema.optional(),
    ...sessionFieldsSchema,
  })
  .openapi('CreatePasswordRequest');

export type CreatePasswordRequest = z.infer<typeof createPasswordRequestSchema>;

export const authenticatePasswordRequestSchema = z
  .strictObject({
    email,
    password,
    device_fingerprint: deviceFingerprintSchema.optional(),
    ...sessionFieldsSchema,
  })
  .openapi('AuthenticatePasswordRequest');

export type AuthenticatePasswordRequest = z.infer<typeof authenticatePasswordRequestSchema>;

export const resetStartRequestSchema = z
  .strictObject({
    email,
    reset_redirect_url: z.string().min(1).max(2000).optional().openapi({
      description:
        "Where the link leads, one of the App's redirect_urls.reset_password; its default_reset_password when absent.",
    }),
    expiration_minutes: z
      .int()
      .min(5)
      .max(10_080)
      .optional()
      .openapi({ description: "Minutes the link works, 5–10080; the App's setting (30) when absent." }),
  })
  .openapi('PasswordResetStartRequest');

export type ResetStartRequest = z.infer<typeof resetStartRequestSchema>;

export const resetByEmailRequestSchema = z
  .strictObject({
    token: z.string().min(1).max(200),
    password,
    device_fingerprint: deviceFingerprintSchema.optional(),
    ...sessionFieldsSchema,
  })
  .openapi('PasswordResetByEmailRequest');

export type ResetByEmailRequest = z.infer<typeof resetByEmailRequestSchema>;

export const resetByExistingRequestSchema = z
  .strictObject({
    email,
    existing_password: password,
    new_password: password,
    device_fingerprint: deviceFingerprintSchema.optional(),
    ...sessionFieldsSchema,
  })
  .openapi('PasswordResetByExistingRequest');

export type ResetByExistingRequest = z.infer<typeof resetByExistingRequestSchema>;

export const resetBySessionRequestSchema = z
  .strictObject({
    password,
    session_token: sessionFieldsSchema.session_token,
    session_jwt: sessionFieldsSchema.session_jwt,
    session_expires_in: sessionFieldsSchema.session_expires_in,
  })
  .openapi('PasswordResetBySessionRequest');

export type ResetBySessionRequest = z.infer<typeof resetBySessionRequestSchema>;

export const migratePasswordRequestSchema = z
  .strictObject({ email, ...importedHashSchema.shape })
  .openapi('MigratePasswordRequest');

export type MigratePasswordRequest = z.infer<typeof migratePasswordRequestSchema>;

/** What every password route that proves the user answers: as the other sign-ins. */
export const passwordSignedInResponseSchema = z
  .object({
    user_id: z.string(),
    email_id: z.string(),
    ...issuedSessionSchema,
  })
  .openapi('PasswordSignedInResponse');

export type PasswordSignedInResponse = z.infer<typeof passwordSignedInResponseSchema>;

export const resetStartResponseSchema = z
  .object({
    email: z.string().openapi({
      description:
        'The address as normalised. The answer is the same whether or not a user has it: the link goes only to a user.',
    }),
  })
  .openapi('PasswordResetStartResponse');

export const migratePasswordResponseSchema = z
  .object({ user_id: z.string(), email_id: z.string(), user_created: z.boolean() })
  .openapi('MigratePasswordResponse');

export type MigratePasswordResponse = z.infer<typeof migratePasswordResponseSchema>;
