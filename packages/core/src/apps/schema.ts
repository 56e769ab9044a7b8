import { z } from '@hono/zod-openapi';
import { smsNumberTypes } from '../messages/sms-policy.js';
import { oauthSettingsSchema } from '../oauth/schema.js';
import { routeLimitSettings } from '../rate-limits/route-rules.js';
import { organizationsAppSettingsSchema } from '../shared/organization-roles.js';
import { originSchema } from '../shared/origin.js';

function rateLimitRule(limit: number, windowSeconds: number) {
  return z
    .object({
      limit: z.int().min(1).max(1_000_000).default(limit),
      window_seconds: z.int().min(1).max(86_400).default(windowSeconds),
    })
    .prefault({});
}

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
      /** Where password reset links may lead (password-auth); `default_reset_password` when none is asked. */
      reset_password: z.array(z.url()).default([]),
      default_reset_password: z.url().optional(),
      /** Where organization invitation links may lead (organizations); no default: each invitation names one. */
      invite: z.array(z.url()).default([]),
    })
    .prefault({}),
  webauthn: z
    .object({
      /** Relying-party name shown by authenticators; the App name when absent. */
      rp_name: z.string().min(1).optional(),
      /** Domains allowed as relying-party id. `localhost` allows any port on localhost. */
      allowed_domains: z.array(z.string().min(1)).default([]),
      /**
       * The user verification (PIN, biometric) asked of authenticators, and enforced when
       * `required`. `preferred` lets security keys without a PIN sign in.
       */
      user_verification: z.enum(['required', 'preferred', 'discouraged']).default('preferred'),
    })
    .prefault({}),
  sessions: z
    .object({
      /** Lifetime of each session JWT; the session itself lives as long as it was asked to. */
      jwt_lifetime_seconds: z.int().min(30).max(3600).default(300),
      /** Algorithm of the App's session-JWT signing key (applies to keys created after a change). */
      jwt_alg: z.enum(['ES256', 'EdDSA']).default('ES256'),
      /**
       * A session's `last_active_at` is written at most once per this many seconds (token checks
       * and `sessions/authenticate`), not on every request; 0 writes it every time.
       */
      activity_update_seconds: z.int().min(0).max(86_400).default(60),
      /**
       * Step-up Latchkey itself asks of a browser (public token) that adds a passkey to the
       * session's user: a factor proven on that session within this many minutes.
       */
      step_up_minutes: z.int().min(1).max(1440).default(10),
    })
    .prefault({}),
  otp: z
    .object({
      /** Default lifetime of a passcode; a send request may ask for another within 1–60. */
      expires_in_minutes: z.int().min(1).max(60).default(10),
      /** Wrong attempts a passcode survives; the next one kills it. */
      max_attempts: z.int().min(1).max(20).default(5),
      /** What of the sender's device_fingerprint a verify must repeat. */
      device_fingerprint_match: z.enum(['none', 'ip', 'user_agent', 'both']).default('none'),
    })
    .prefault({}),
  totp: z
    .object({
      /** TOTP codes checked (sign-in and activation) without a success before TOTP codes lock. */
      max_failures: z.int().min(1).max(100).default(10),
      /**
       * Wrong recovery codes before recovery codes lock: a count and lock of their own, so a
       * user whose TOTP codes are locked (by anyone) can still sign in with a recovery code.
       */
      recovery_max_failures: z.int().min(1).max(100).default(10),
      /** How long a lock-out lasts (TOTP codes and recovery codes alike). */
      lockout_minutes: z.int().min(1).max(1440).default(15),
    })
    .prefault({}),
  magic_links: z
    .object({
      /** What of the requester's device_fingerprint the authenticating device must repeat. */
      device_fingerprint_match: z.enum(['none', 'ip', 'user_agent', 'both']).default('none'),
      /** Uses from a device that does not match a link survives; the next one kills it. */
      max_attempts: z.int().min(1).max(20).default(5),
    })
    .prefault({}),
  wallets: z
    .object({
      /** Network for new wallets where the address format differs (bitcoin `tb1q…` on testnet). */
      network: z.enum(['mainnet', 'testnet']).default('mainnet'),
    })
    .prefault({}),
  /** Sign-in by wallet signature: what the message to sign says (see docs/wallet-auth.md). */
  wallet_auth: z
    .object({
      /** host[:port] of the site users sign in on; wallets warn when the page is elsewhere. */
      domain: z
        .string()
        .regex(
          /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/,
          'a host name with an optional port, e.g. app.example.com',
        )
        .max(253)
        .default('localhost'),
      /** The message's `URI:`; `https://<domain>` (http for localhost) when absent. */
      uri: z.url().max(2000).optional(),
      /** One line shown above the fields; '' for none. EIP-4361 allows no line breaks and no non-ASCII. */
      statement: z
        .string()
        .max(300)
        .regex(
          /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;= ]*$/,
          'one line of ASCII letters, digits, spaces and URI punctuation',
        )
        .default('Sign in with your wallet.'),
      /** How long a challenge can be verified. */
      challenge_ttl_seconds: z.int().min(30).max(3600).default(300),
      /** EIP-155 chain id in ethereum messages (1: Ethereum mainnet). */
      ethereum_chain_id: z.int().min(1).max(Number.MAX_SAFE_INTEGER).default(1),
      /** Cluster in solana messages. */
      solana_chain_id: z.enum(['mainnet', 'devnet', 'testnet']).default('mainnet'),
    })
    .prefault({}),
  passwords: z
    .object({
      /** The zxcvbn score (0–4) a password needs for `valid_password`. */
      min_score: z.int().min(0).max(4).default(3),
      /** Whether the public token may call `passwords/create` (sign-up by password from a browser). */
      public_signup: z.boolean().default(false),
      /**
       * A public sign-up for an address that already has a user: `notice` answers as for a new
       * address and emails the owner (no one learns which addresses have accounts); `conflict`
       * answers 409 `duplicate_email` (clearer, but it tells anyone who asks).
       */
      taken_email: z.enum(['notice', 'conflict']).default('notice'),
      /** Wrong passwords for one account before it locks (only the right password clears the count). */
      max_failures: z.int().min(1).max(100).default(10),
      /** How long an account lock-out lasts. */
      lockout_minutes: z.int().min(1).max(1440).default(15),
      /** Password checks (sign-ins, changes by existing password) from one IP address. */
      per_ip: rateLimitRule(100, 600),
      /** Minutes a reset link works when the request names none. */
      reset_expiration_minutes: z.int().min(5).max(10_080).default(30),
      /** How recent a session's last factor must be for `passwords/session/reset`. */
      session_reset_max_age_minutes: z.int().min(1).max(1440).default(5),
      /** A password change or reset revokes the user's other sessions. */
      revoke_sessions_on_change: z.boolean().default(true),
    })
    .prefault({}),
  /** Where passcodes go by SMS (see docs/rate-limits.md, SMS pumping). */
  sms: z
    .object({
      /**
       * Country calling codes SMS may go to, without `+` (`"1"`, `"44"`); empty: every country.
       * Every country is the default so no App breaks, but it lets a script send paid SMS to
       * any country: list yours.
       */
      allowed_calling_codes: z
        .array(z.string().regex(/^[1-9]\d{0,2}$/, 'a calling code without "+", e.g. "44"'))
        .max(300)
        .default([]),
      /** Number types (from libphonenumber metadata) SMS never go to. */
      refused_number_types: z.array(z.enum(smsNumberTypes)).max(20).default(['premium_rate', 'shared_cost']),
    })
    .prefault({}),
  rate_limits: z
    .object({
      /** Messages (passcodes, links) to one phone number or email address. */
      per_destination: rateLimitRule(5, 600),
      /** Messages the App sends in all. */
      per_app: rateLimitRule(1000, 3600),
      /** SMS the App sends in all: lower than `per_app`, since each SMS costs money. */
      per_app_sms: rateLimitRule(100, 3600),
      /** Invitations one organization sends (beside `per_destination` for the invitee's address). */
      invitations_per_organization: rateLimitRule(50, 3600),
      ...routeLimitSettings,
    })
    .prefault({}),
  /** Sign-in providers (docs/oauth.md); client secrets and keys are sealed when written. */
  oauth: oauthSettingsSchema,
  /** Organizations (docs/organizations.md): the roles the App adds to owner, admin and member. */
  organizations: organizationsAppSettingsSchema,
  cors: z
    .object({
      /** Browser origins (`https://app.example.com`) that may call the public-token routes. */
      allowed_origins: z.array(originSchema).max(100).default([]),
    })
    .prefault({}),
  /**
   * Message texts. Placeholders: {{app_name}}, {{code}}, {{minutes}} for passcodes,
   * {{app_name}}, {{url}}, {{minutes}} for magic links and password reset links (and
   * {{organization_name}} for invitations), {{app_name}}
   * for the notice of a sign-up with a taken address.
   */
  messages: z
    .object({
      otp_sms: z
        .string()
        .min(1)
        .max(320)
        .default('{{code}} is your {{app_name}} code. It expires in {{minutes}} minutes.'),
      otp_email_subject: z.string().min(1).max(200).default('Your {{app_name}} code: {{code}}'),
      otp_email_text: z
        .string()
        .min(1)
        .max(10_000)
        .default(
          'Your {{app_name}} code is {{code}}.\n\nIt expires in {{minutes}} minutes. If you did not ask for it, ignore this email.',
        ),
      magic_link_email_subject: z.string().min(1).max(200).default('Your {{app_name}} sign-in link'),
      magic_link_email_text: z
        .string()
        .min(1)
        .max(10_000)
        .default(
          'Sign in to {{app_name}} with this link:\n\n{{url}}\n\nIt works once and expires in {{minutes}} minutes. If you did not ask for it, ignore this email.',
        ),
      magic_link_email_html: z
        .string()
        .min(1)
        .max(20_000)
        .default(
          '<p>Sign in to {{app_name}}:</p><p><a href="{{url}}">Sign in</a></p><p>The link works once and expires in {{minutes}} minutes. If you did not ask for it, ignore this email.</p>',
        ),
      invitation_email_subject: z
        .string()
        .min(1)
        .max(200)
        .default('You are invited to join {{organization_name}} on {{app_name}}'),
      invitation_email_text: z
        .string()
        .min(1)
        .max(10_000)
        .default(
          'You are invited to join {{organization_name}} on {{app_name}}. Accept with this link:\n\n{{url}}\n\nIt works once and expires in {{minutes}} minutes. If you did not expect it, ignore this email.',
        ),
      invitation_email_html: z
        .string()
        .min(1)
        .max(20_000)
        .default(
          '<p>You are invited to join {{organization_name}} on {{app_name}}.</p><p><a href="{{url}}">Accept the invitation</a></p><p>The link works once and expires in {{minutes}} minutes. If you did not expect it, ignore this email.</p>',
        ),
      password_reset_email_subject: z.string().min(1).max(200).default('Reset your {{app_name}} password'),
      password_reset_email_text: z
        .string()
        .min(1)
        .max(10_000)
        .default(
          'Choose a new {{app_name}} password with this link:\n\n{{url}}\n\nIt works once and expires in {{minutes}} minutes. If you did not ask for it, ignore this email: your password stays as it is.',
        ),
      password_reset_email_html: z
        .string()
        .min(1)
        .max(20_000)
        .default(
          '<p>Choose a new {{app_name}} password:</p><p><a href="{{url}}">Reset password</a></p><p>The link works once and expires in {{minutes}} minutes. If you did not ask for it, ignore this email: your password stays as it is.</p>',
        ),
      password_signup_notice_subject: z
        .string()
        .min(1)
        .max(200)
        .default('Someone tried to sign up to {{app_name}} with your address'),
      password_signup_notice_text: z
        .string()
        .min(1)
        .max(10_000)
        .default(
          'Someone tried to create a {{app_name}} account with this email address, which already has one. If it was you, sign in instead, or reset your password. If it was not, you need do nothing.',
        ),
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

/** `GET /v1/app` and `PATCH /v1/app/settings`: the App without anything secret. */
export const appViewSchema = z
  .object({
    app_id: z.string(),
    name: z.string(),
    settings: appSettingsSchema,
    created_at: z.int(),
    updated_at: z.int(),
  })
  .openapi('App');

export type AppView = z.infer<typeof appViewSchema>;

/** A JSON merge patch (RFC 7396) of the settings: given fields change, `null` resets one. */
export const settingsPatchSchema = z
  .record(z.string(), z.unknown())
  .openapi('AppSettingsPatch', { description: 'A JSON merge patch of the App settings' });
