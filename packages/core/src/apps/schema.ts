import { z } from '@hono/zod-openapi';

/**
 * Per-App settings. Stored as one JSON document and parsed through this schema on every read,
 * so a setting added in a later version takes its default for Apps created before it.
 */
export const appSettingsSchema = z.object({
  redirect_urls: z
    .object({
      login: z.array(z.url()).default([]),
      signup: z.array(z.url()).default([]),
      default_login: z.url().optional(),
      default_signup: z.url().optional(),
    })
    .prefault({}),
  webauthn: z
    .object({
      /** Relying-party name shown by authenticators; the App name when absent. */
      rp_name: z.string().min(1).optional(),
      /** Domains allowed as relying-party id. `localhost` allows any port on localhost. */
      allowed_domains: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
  sessions: z
    .object({
      /** Lifetime of each session JWT; the session itself lives as long as it was asked to. */
      jwt_lifetime_seconds: z.int().min(30).max(3600).default(300),
    })
    .prefault({}),
});

export type AppSettings = z.infer<typeof appSettingsSchema>;
export type AppSettingsInput = z.input<typeof appSettingsSchema>;

export const createAppInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  settings: appSettingsSchema.optional(),
});

export type CreateAppInput = z.input<typeof createAppInputSchema>;

/** What a new App, or a rotation, hands out once: the keys are never readable again. */
export interface AppKeys {
  app_id: string;
  secret_key: string;
  public_token: string;
}
