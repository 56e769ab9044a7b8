import { z } from '@hono/zod-openapi';
import { issuedSessionSchema, sessionFieldsSchema } from '../sessions/schema.js';
import { deviceFingerprintSchema } from '../shared/device-fingerprint.js';

/** The App's name for a provider: the path segment of its start route. */
export const PROVIDER_ID = /^[a-z0-9][a-z0-9_-]{0,39}$/;

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

/** RFC 6749's scope-token characters (printable ASCII but space, `"` and `\`). */
const scope = z
  .string()
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,100}$/, 'a scope token (printable ASCII, no spaces or quotes)');

/**
 * A secret the App writes and never reads back: given in plain text, sealed by the KeyVault before
 * the settings are stored (provider-secrets.ts), and shown afterwards only by its hint.
 */
const writeOnly = (max: number) => z.string().min(1).max(max).optional();
const sealed = z.string().max(20_000).optional();
const hint = z.string().max(8).optional();

const common = {
  client_id: z.string().min(1).max(500),
  client_secret: writeOnly(2000),
  client_secret_sealed: sealed,
  client_secret_hint: hint,
  /** The scopes asked for; the preset's when absent. */
  scopes: z.array(scope).min(1).max(50).optional(),
  /**
   * Whether a new identity whose email the provider says is verified signs in the user who has
   * that (verified) email, and is linked to them. The preset's default when absent: on for
   * google, apple and microsoft, whose emails are verified by the provider itself; off otherwise.
   */
  link_by_verified_email: z.boolean().optional(),
  /** Keep the provider's access and refresh tokens, sealed, for `latchkey.oauth.providerTokens`. */
  store_tokens: z.boolean().default(false),
};

const httpUrl = z.url({ protocol: /^https?$/ }).max(500);

export const oauthProviderSettingsSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('oidc'), issuer: httpUrl, ...common }),
  z.object({ type: z.literal('google'), ...common }),
  z.object({
    type: z.literal('microsoft'),
    /** `common`, `organizations`, `consumers` or a tenant id or domain. */
    tenant: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9.-]{0,99}$/)
      .default('common'),
    ...common,
  }),
  z.object({
    type: z.literal('apple'),
    /** The Services ID is the client id; the team and key ids sign the client secret JWT. */
    team_id: z.string().regex(/^[A-Z0-9]{10}$/),
    key_id: z.string().regex(/^[A-Z0-9]{10}$/),
    /** The Sign in with Apple key (PKCS#8 PEM), write-only like client_secret. */
    private_key: writeOnly(5000),
    private_key_sealed: sealed,
    private_key_hint: hint,
    ...common,
  }),
  z.object({
    type: z.literal('github'),
    /** GitHub Enterprise Server (or a server speaking GitHub's endpoints): the web and API bases. */
    base_url: httpUrl.optional(),
    api_url: httpUrl.optional(),
    ...common,
  }),
  z.object({ type: z.literal('discord'), ...common }),
]);

export type OAuthProviderSettings = z.infer<typeof oauthProviderSettingsSchema>;
export type OAuthProviderType = OAuthProviderSettings['type'];

export const oauthSettingsSchema = z
  .object({
    /** Each provider under the id the App chose for it (`/v1/auth/oauth/{provider_id}/start`). */
    providers: z.record(z.string().regex(PROVIDER_ID), oauthProviderSettingsSchema).default({}),
  })
  .prefault({});

/** The stored fields that hold sealed secrets: never shown, never written by a caller. */
export const SEALED_FIELDS = ['client_secret_sealed', 'private_key_sealed'] as const;
/** The write-only fields, each with the sealed field and the hint it becomes. */
export const SECRET_FIELDS = [
  { plain: 'client_secret', sealed: 'client_secret_sealed', hint: 'client_secret_hint' },
  { plain: 'private_key', sealed: 'private_key_sealed', hint: 'private_key_hint' },
] as const;

/** The settings as the API shows them: sealed secrets left out (their hints stay). */
export function withoutSealedSecrets<S extends { oauth: z.infer<typeof oauthSettingsSchema> }>(
  settings: S,
): S {
  const entries = Object.entries(settings.oauth.providers);
  if (entries.length === 0) return settings;
  const providers = Object.fromEntries(
    entries.map(([id, p]) => {
      const shown: Record<string, unknown> = { ...p };
      for (const field of SEALED_FIELDS) delete shown[field];
      return [id, shown];
    }),
  );
  return { ...settings, oauth: { ...settings.oauth, providers } };
}
