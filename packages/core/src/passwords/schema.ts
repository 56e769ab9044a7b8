import { z } from '@hono/zod-openapi';

/** The longest password checked; longer ones get a 400 rather than minutes of matching. */
export const MAX_PASSWORD_LENGTH = 256;

export const strengthCheckRequestSchema = z
  .strictObject({
    password: z
      .string()
      .min(1)
      .max(MAX_PASSWORD_LENGTH)
      .openapi({
        description: `The password to check, at most ${MAX_PASSWORD_LENGTH} characters. Never stored or logged.`,
      }),
    email: z.string().min(1).max(320).optional().openapi({
      description: 'The email of the person choosing it: a password built from it scores lower.',
    }),
    user_id: z.string().min(1).max(100).optional().openapi({
      description:
        "Needs the secret key. The user's emails, phone numbers and names count against the password.",
    }),
  })
  .openapi('StrengthCheckRequest');

export type StrengthCheckRequest = z.infer<typeof strengthCheckRequestSchema>;

export const strengthCheckResponseSchema = z
  .object({
    score: z.int().min(0).max(4).openapi({
      description:
        "0–4, higher is stronger: zxcvbn's score (4 is over 10^10 guesses). The password is valid at the App's minimum.",
    }),
    crack_time: z.number().openapi({
      description:
        'Seconds to crack offline with unlimited attempts at 10^10 guesses per second (a fast hash on GPUs).',
    }),
    crack_time_display: z.string().openapi({ description: 'crack_time in words: "3 hours", "centuries".' }),
    valid_password: z.boolean().openapi({
      description: "Whether score reaches the App's settings.passwords.min_score (3 unless set).",
    }),
    feedback: z
      .object({
        warning: z.string().openapi({ description: 'Why the password is weak; empty when it is not.' }),
        suggestions: z.array(z.string()),
      })
      .openapi('PasswordFeedback'),
  })
  .openapi('StrengthCheckResponse');

export type StrengthCheckResponse = z.infer<typeof strengthCheckResponseSchema>;
