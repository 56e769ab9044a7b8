import { z } from '@hono/zod-openapi';

/*
 * How a user proved who they are, as a session and its JWT list it. One member per kind of
 * proof Latchkey accepts, told apart by `type` (and, for `otp`, by `delivery_channel`); the
 * method fields name what was proved. The phone-number method is the spec's, field for field;
 * the others follow its pattern (`method_id`, `method_type`, the id under its own name,
 * `last_verified_at`).
 */

const verifiedAt = z.int().openapi({ description: 'Unix seconds: when this proof was made.' });

const phoneNumberMethod = z
  .object({
    method_id: z.string(),
    method_type: z.literal('phone_number'),
    phone_number_id: z.string(),
    phone_number: z.string().openapi({ description: 'E.164.' }),
    last_verified_at: verifiedAt,
  })
  .openapi('PhoneNumberFactorMethod');

const emailMethod = z
  .object({
    method_id: z.string(),
    method_type: z.literal('email'),
    email_id: z.string(),
    email: z.string(),
    last_verified_at: verifiedAt,
  })
  .openapi('EmailFactorMethod');

const totpMethod = z
  .object({
    method_id: z.string(),
    method_type: z.literal('totp'),
    totp_id: z.string(),
    last_verified_at: verifiedAt,
  })
  .openapi('TotpFactorMethod');

const webauthnMethod = z
  .object({
    method_id: z.string(),
    method_type: z.literal('webauthn_credential'),
    webauthn_credential_id: z.string(),
    last_verified_at: verifiedAt,
  })
  .openapi('WebAuthnFactorMethod');

const walletMethod = z
  .object({
    method_id: z.string(),
    method_type: z.literal('wallet'),
    wallet_id: z.string(),
    /** The chains that sign in by signed message (wallet-auth's SIGN_IN_WALLET_TYPES). */
    wallet_type: z.enum(['ethereum', 'solana']),
    public_address: z.string(),
    last_verified_at: verifiedAt,
  })
  .openapi('WalletFactorMethod');

const oauthMethod = z
  .object({
    method_id: z.string(),
    method_type: z.literal('oauth'),
    oauth_link_id: z.string(),
    provider_id: z.string(),
    provider_subject: z.string(),
    email: z.string().nullable(),
    last_verified_at: verifiedAt,
  })
  .openapi('OAuthFactorMethod');

/*
 * A plain union, written in the document as a `oneOf` of the seven shapes: `type` alone does not
 * tell them apart (`otp` comes by sms or email), so the document carries no `discriminator`;
 * the `type` and `delivery_channel` constants of each shape do.
 */
export const factorSchema = z
  .union([
    z
      .object({ type: z.literal('otp'), delivery_channel: z.literal('sms'), method: phoneNumberMethod })
      .openapi('SmsOtpFactor'),
    z
      .object({ type: z.literal('otp'), delivery_channel: z.literal('email'), method: emailMethod })
      .openapi('EmailOtpFactor'),
    z
      .object({ type: z.literal('magic_link'), delivery_channel: z.literal('email'), method: emailMethod })
      .openapi('MagicLinkFactor'),
    z
      .object({
        type: z.literal('totp'),
        delivery_channel: z.literal('authenticator_app'),
        method: totpMethod,
      })
      .openapi('TotpFactor'),
    z
      .object({
        type: z.literal('recovery_code'),
        delivery_channel: z.literal('recovery_code'),
        method: totpMethod,
      })
      .openapi('RecoveryCodeFactor'),
    z
      .object({
        type: z.literal('webauthn'),
        delivery_channel: z.literal('webauthn'),
        method: webauthnMethod,
      })
      .openapi('WebAuthnFactor'),
    z
      .object({ type: z.literal('password'), delivery_channel: z.literal('knowledge'), method: emailMethod })
      .openapi('PasswordFactor'),
    z
      .object({
        type: z.literal('signature_challenge'),
        delivery_channel: z.literal('crypto_wallet'),
        method: walletMethod,
      })
      .openapi('WalletFactor'),
    z
      .object({ type: z.literal('oauth'), delivery_channel: z.literal('oauth'), method: oauthMethod })
      .openapi('OAuthFactor'),
  ])
  .openapi('Factor', {}, { unionPreferredType: 'oneOf' });

/**
 * One proof of identity on a session, appended each time the user proves it again (one per
 * `type` and `method.method_id`, the latest).
 */
export type Factor = z.infer<typeof factorSchema>;

type Contact = { id: string; address: string };

/** The method fields of a phone number a code was sent to, as the spec gives them. */
export const phoneNumberFactorMethod = (
  contact: Contact,
  verifiedAt: number,
): z.infer<typeof phoneNumberMethod> => ({
  method_id: contact.id,
  method_type: 'phone_number',
  phone_number_id: contact.id,
  phone_number: contact.address,
  last_verified_at: verifiedAt,
});

/** The method fields of an email address a code or link was sent to (the phone number's twin). */
export const emailFactorMethod = (contact: Contact, verifiedAt: number): z.infer<typeof emailMethod> => ({
  method_id: contact.id,
  method_type: 'email',
  email_id: contact.id,
  email: contact.address,
  last_verified_at: verifiedAt,
});

/*
 * The `provider_id` of an `oauth` factor made through an organization's SSO connection: the sso
 * capability makes such factors, organizations tell them from an App's own OAuth providers'.
 */
const SSO_PROVIDER_PREFIX = 'sso:';

export const ssoProviderId = (connectionId: string) => `${SSO_PROVIDER_PREFIX}${connectionId}`;

/** The SSO connection an `oauth` factor's `provider_id` names, or undefined for an App's provider. */
export const ssoConnectionIdOf = (providerId: string) =>
  providerId.startsWith(SSO_PROVIDER_PREFIX) ? providerId.slice(SSO_PROVIDER_PREFIX.length) : undefined;
