import { z } from '@hono/zod-openapi';
import { issuedSessionSchema, sessionFieldsSchema } from '../sessions/schema.js';
import { deviceFingerprintSchema } from '../shared/device-fingerprint.js';

const userId = z.string().min(1).max(100);

export const createTotpRequestSchema = z
  .strictObject({
    user_id: userId,
    expires_in: z
      .union([z.int(), z.string().regex(/^\d+$/).transform(Number)])
      .pipe(z.int().min(5).max(2160))
      .optional()
      .openapi({
        type: 'integer',
        description:
          'Minutes within which the TOTP must be verified to become active, 5–2160; 30 when absent. The spec types it as a string; a numeric string or an integer are both accepted.',
      }),
  })
  .openapi('CreateTotpRequest');

export const createTotpResponseSchema = z
  .object({
    user_id: z.string(),
    secret: z.string().openapi({ description: 'Base32 shared secret.' }),
    totp_id: z.string(),
    recovery_codes: z.array(z.string()),
    qr_base64: z.string().openapi({ description: 'A PNG data URI of the otpauth:// URI.' }),
  })
  .openapi('CreateTotpResponse');

export const totpCodeSchema = z.string().min(1).max(20);

export const verifyTotpRequestSchema = z
  .strictObject({ user_id: userId, totp_code: totpCodeSchema })
  .openapi('VerifyTotpRequest');

export const verifyTotpResponseSchema = z
  .object({ user_id: z.string(), totp_id: z.string(), status: z.literal('active') })
  .openapi('VerifyTotpResponse');

export const authenticateTotpRequestSchema = z
  .strictObject({
    user_id: userId,
    totp_code: totpCodeSchema,
    device_fingerprint: deviceFingerprintSchema.optional(),
    ...sessionFieldsSchema,
  })
  .openapi('AuthenticateTotpRequest');

export const recoverTotpRequestSchema = z
  .strictObject({
    user_id: userId,
    recovery_code: z.string().min(1).max(40),
    device_fingerprint: deviceFingerprintSchema.optional(),
    ...sessionFieldsSchema,
  })
  .openapi('RecoverTotpRequest');

export const totpSessionResponseSchema = z
  .object({ user_id: z.string(), totp_id: z.string(), ...issuedSessionSchema })
  .openapi('TotpSessionResponse');

export type CreateTotpRequest = z.infer<typeof createTotpRequestSchema>;
