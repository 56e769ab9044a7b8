import { z } from '@hono/zod-openapi';
import { issuedSessionSchema, sessionFieldsSchema } from '../sessions/schema.js';
import { deviceFingerprintSchema } from '../shared/device-fingerprint.js';

const expiration_minutes = z
  .int()
  .min(1)
  .max(60)
  .optional()
  .openapi({ description: "Minutes the passcode lives; the App's setting (default 10) when absent." });

export const sendSmsOtpRequestSchema = z
  .strictObject({
    phone_number: z.string().min(1).max(40),
    user_id: z.string().min(1).max(100).optional().openapi({
      description:
        'Adds the number to this user when new. Without it the number must already belong to a user.',
    }),
    expiration_minutes,
    device_fingerprint: deviceFingerprintSchema.optional(),
  })
  .openapi('SendSmsOtpRequest');

export const sendEmailOtpRequestSchema = z
  .strictObject({
    email: z.string().min(1).max(320),
    user_id: z.string().min(1).max(100).optional(),
    expiration_minutes,
    device_fingerprint: deviceFingerprintSchema.optional(),
  })
  .openapi('SendEmailOtpRequest');

export const loginOrCreateSmsRequestSchema = z
  .strictObject({
    phone_number: z.string().min(1).max(40),
    expiration_minutes,
    device_fingerprint: deviceFingerprintSchema.optional(),
    create_user_as_pending: z.boolean().optional().openapi({
      description: 'A user created here stays `pending` until the passcode is verified.',
    }),
  })
  .openapi('LoginOrCreateSmsOtpRequest');

export const loginOrCreateEmailRequestSchema = z
  .strictObject({
    email: z.string().min(1).max(320),
    expiration_minutes,
    device_fingerprint: deviceFingerprintSchema.optional(),
    create_user_as_pending: z.boolean().optional(),
  })
  .openapi('LoginOrCreateEmailOtpRequest');

export const sendOtpResponseSchema = z
  .object({
    method_id: z.string(),
    user_id: z.string(),
    phone_number_id: z.string().optional(),
    email_id: z.string().optional(),
    user_created: z.boolean().optional(),
  })
  .openapi('SendOtpResponse');

export type SendOtpResponse = z.infer<typeof sendOtpResponseSchema>;

export const verifyOtpRequestSchema = z
  .strictObject({
    method_id: z.string().min(1).max(100),
    otp: z.string().min(1).max(20),
    device_fingerprint: deviceFingerprintSchema.optional(),
    ...sessionFieldsSchema,
  })
  .openapi('VerifyOtpRequest');

export type VerifyOtpRequest = z.infer<typeof verifyOtpRequestSchema>;

export const verifyOtpResponseSchema = z
  .object({
    method_id: z.string(),
    method_type: z.enum(['email', 'phone_number']),
    user_id: z.string(),
    ...issuedSessionSchema,
  })
  .openapi('VerifyOtpResponse');

export type VerifyOtpResponse = z.infer<typeof verifyOtpResponseSchema>;
