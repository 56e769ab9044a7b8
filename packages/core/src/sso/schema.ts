import { z } from '@hono/zod-openapi';
import { issuedSessionSchema, sessionFieldsSchema } from '../sessions/schema.js';
import { deviceFingerprintSchema } from '../shared/device-fingerprint.js';
import { domainProblem } from '../shared/hostnames.js';

const id = z.string().min(1).max(100);
const httpUrl = z.url({ protocol: /^https?$/ }).max(500);
/** A PKCE S256 challenge or verifier: base64url, 43 to 128 characters (RFC 7636). */
const pkceValue = z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/);
/** RFC 6749's scope-token characters (printable ASCII but space, `"` and `\`). */
const scope = z
  .string()
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,100}$/, 'a scope token (printable ASCII, no spaces or quotes)');

const domain = z
  .string()
  .max(253)
  .transform((d) => d.toLowerCase())
  .superRefine((d, ctx) => {
    const problem = domainProblem(d);
    if (problem || d === 'localhost')
      ctx.addIssue({ code: 'custom', message: problem ?? 'a domain such as example.com' });
  });

const connectionFields = {
  issuer: httpUrl.openapi({
    description:
      "The provider's issuer: its OpenID Connect discovery document is read (and checked) when the connection is written.",
  }),
  client_id: z.string().min(1).max(500),
  client_secret: z.string().min(1).max(2000).openapi({
    description: 'Write-only: sealed at rest, never answered (only `client_secret_hint`).',
  }),
  scopes: z
    .array(scope)
    .min(1)
    .max(50)
    .nullable()
    .openapi({ description: '`openid email profile` when absent or null; `openid` is always asked.' }),
  email_domains: z
    .array(domain)
    .max(100)
    .transform((domains) => [...new Set(domains)])
    .openapi({
      description:
        "The domains whose emails the provider may vouch for; empty: the organization's `allowed_email_domains`. A domain belongs to one connection of the App.",
    }),
};

export const createSsoConnectionRequestSchema = z
  .strictObject({
    issuer: connectionFields.issuer,
    client_id: connectionFields.client_id,
    client_secret: connectionFields.client_secret,
    scopes: connectionFields.scopes.optional(),
    email_domains: connectionFields.email_domains.optional(),
  })
  .openapi('CreateSsoConnectionRequest');

export type CreateSsoConnectionRequest = z.infer<typeof createSsoConnectionRequestSchema>;

export const updateSsoConnectionRequestSchema = z
  .strictObject({
    issuer: connectionFields.issuer.optional(),
    client_id: connectionFields.client_id.optional(),
    client_secret: connectionFields.client_secret.optional(),
    scopes: connectionFields.scopes.optional(),
    email_domains: connectionFields.email_domains.optional(),
  })
  .openapi('UpdateSsoConnectionRequest');

export type UpdateSsoConnectionRequest = z.infer<typeof updateSsoConnectionRequestSchema>;

export const ssoConnectionSchema = z
  .object({
    connection_id: z.string(),
    organization_id: z.string(),
    issuer: z.string(),
    client_id: z.string(),
    client_secret_hint: z.string().openapi({ description: "The secret's last four characters." }),
    scopes: z.array(z.string()).nullable(),
    email_domains: z.array(z.string()),
    created_at: z.int(),
    updated_at: z.int(),
  })
  .openapi('SsoConnection');

export type SsoConnectionView = z.infer<typeof ssoConnectionSchema>;

export const deletedSsoConnectionSchema = z
  .object({ connection_id: z.string(), organization_id: z.string() })
  .openapi('DeletedSsoConnection');

export const organizationParamsSchema = z.object({ organization_id: id });

export const ssoStartQuerySchema = z.strictObject({
  organization_id: id.optional().openapi({ description: 'The organization; or `slug`, or `email_domain`.' }),
  slug: z.string().min(1).max(64).optional(),
  email_domain: z.string().min(1).max(253).optional().openapi({
    description:
      "The domain of the user's email (what a sign-in page asks first): the connection claiming it.",
  }),
  public_token: z.string().min(1).max(200).optional().openapi({
    description:
      "The App's public token, here because a browser navigation carries no Authorization header (never the secret key).",
  }),
  redirect_url: z.string().min(1).max(2000).optional().openapi({
    description: "Where the callback sends the browser: one of the App's `redirect_urls.login`.",
  }),
  code_challenge: pkceValue.optional().openapi({
    description:
      "The browser's own PKCE challenge (S256): `sso/authenticate` then needs its `code_verifier`.",
  }),
  code_challenge_method: z.literal('S256').optional(),
});

export type SsoStartQuery = z.infer<typeof ssoStartQuerySchema>;

export const ssoAuthenticateRequestSchema = z
  .strictObject({
    token: z.string().min(1).max(200),
    code_verifier: pkceValue.optional(),
    device_fingerprint: deviceFingerprintSchema.optional(),
    ...sessionFieldsSchema,
  })
  .openapi('SsoAuthenticateRequest');

export type SsoAuthenticateRequest = z.infer<typeof ssoAuthenticateRequestSchema>;

export const ssoAuthenticateResponseSchema = z
  .object({
    user_id: z.string(),
    organization_id: z.string(),
    member_id: z.string(),
    member_created: z.boolean().openapi({
      description: "True when this sign-in provisioned the member (with the organization's default role).",
    }),
    connection_id: z.string(),
    user_created: z.boolean(),
    ...issuedSessionSchema,
  })
  .openapi('SsoAuthenticateResponse');

export type SsoAuthenticateResponse = z.infer<typeof ssoAuthenticateResponseSchema>;
