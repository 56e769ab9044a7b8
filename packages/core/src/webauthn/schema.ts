import { z } from '@hono/zod-openapi';
import { issuedSessionSchema, sessionFieldsSchema } from '../sessions/schema.js';
import { boundedRecord } from '../shared/bounded-record.js';
import { deviceFingerprintSchema } from '../shared/device-fingerprint.js';
import { userIdSchema } from '../users/schema.js';

const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

const base64url = (max: number) =>
  z.string().min(1).max(max).regex(BASE64URL, 'must be base64url').openapi({ format: 'base64url' });

const domain = z.string().min(1).max(253).openapi({
  description: "The relying-party id: one of the App's `settings.webauthn.allowed_domains`.",
  example: 'example.com',
});

const authenticatorType = z.enum(['platform', 'cross-platform']);
const userVerification = z.enum(['required', 'preferred', 'discouraged']);

// Credential ids are at most 1023 bytes (WebAuthn), 1364 characters in base64url.
const credentialId = base64url(1400);

const credentialDescriptor = z.object({
  type: z.literal('public-key'),
  id: z.string(),
  transports: z.array(z.string()).optional(),
});

/**
 * The browser's credential as `PublicKeyCredential.toJSON()` (or @simplewebauthn/browser) gives
 * it. Fields a newer browser adds are accepted and ignored.
 */
const credentialCommon = {
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  // Extensions answer a handful of keys (credProps, prf, largeBlob…); the public token reaches this.
  clientExtensionResults: boundedRecord(z.string(), z.unknown(), 64).default({}),
  authenticatorAttachment: authenticatorType.optional(),
};

export const registrationCredentialSchema = z
  .looseObject({
    ...credentialCommon,
    response: z.looseObject({
      clientDataJSON: base64url(10_000),
      attestationObject: base64url(200_000),
      transports: z.array(z.string().max(50)).max(20).optional(),
    }),
  })
  .openapi('WebAuthnRegistrationCredential');

export const authenticationCredentialSchema = z
  .looseObject({
    ...credentialCommon,
    response: z.looseObject({
      clientDataJSON: base64url(10_000),
      authenticatorData: base64url(10_000),
      signature: base64url(2_000),
      userHandle: z.string().max(200).regex(BASE64URL, 'must be base64url').nullable().optional(),
    }),
  })
  .openapi('WebAuthnAuthenticationCredential');

export type RegistrationCredential = z.infer<typeof registrationCredentialSchema>;
export type AuthenticationCredential = z.infer<typeof authenticationCredentialSchema>;

/**
 * Who a passkey is added to. With the secret key, the App's backend names the user; with the
 * public token, the browser proves it is that user with their live session, and cannot name
 * anyone (a bare user id would let any visitor attach a passkey to any account).
 */
const registrantFields = {
  user_id: userIdSchema.optional().openapi({
    description: 'The user to add the credential to. Secret key only; required with it.',
  }),
  session_token: z.string().min(1).max(200).optional().openapi({
    description:
      "With the public token: the user's live session token (or send `session_jwt`); the credential goes to that session's user.",
  }),
  session_jwt: z.string().min(1).max(8000).optional().openapi({
    description: "With the public token: the user's live session JWT (or send `session_token`).",
  }),
};

const registrantSchema = z.object(registrantFields);

export type Registrant = z.infer<typeof registrantSchema>;

const registrationBeginFields = {
  domain,
  authenticator_type: authenticatorType.optional().openapi({
    description:
      '`platform` (built-in: Touch ID, Windows Hello, Android) or `cross-platform` (security keys, phones); `platform` when absent.',
  }),
};

export const registrationBeginRequestSchema = z
  .strictObject({ ...registrationBeginFields, ...registrantFields })
  .openapi('WebAuthnRegistrationBeginRequest');

/** What the service takes once the route has settled whose credential it is. */
export const registrationBeginInputSchema = z.strictObject({
  ...registrationBeginFields,
  user_id: userIdSchema,
});

export type RegistrationBeginRequest = z.infer<typeof registrationBeginInputSchema>;

export const creationOptionsSchema = z
  .object({
    publicKey: z.object({
      challenge: z.string().openapi({ description: 'base64url' }),
      rp: z.object({ name: z.string(), id: z.string() }),
      user: z.object({
        name: z.string(),
        displayName: z.string(),
        id: z.string().openapi({ description: 'The user handle, base64url of the user id.' }),
      }),
      pubKeyCredParams: z.array(z.object({ type: z.literal('public-key'), alg: z.int() })),
      authenticatorSelection: z.object({
        authenticatorAttachment: authenticatorType,
        userVerification,
        residentKey: z.enum(['required', 'preferred', 'discouraged']),
        requireResidentKey: z.boolean(),
      }),
      timeout: z.int().openapi({ description: 'Milliseconds; the challenge expires with it.' }),
      excludeCredentials: z.array(credentialDescriptor),
      attestation: z.literal('none'),
    }),
  })
  .openapi('WebAuthnCreationOptions');

export type CreationOptions = z.infer<typeof creationOptionsSchema>;

export const registrationBeginResponseSchema = z
  .object({ public_key_credential_creation_options: creationOptionsSchema, user_id: z.string() })
  .openapi('WebAuthnRegistrationBeginResponse');

const registrationCreateFields = {
  public_key_credential: registrationCredentialSchema,
  name: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: 'A label for the credential, shown in the user view.' }),
};

export const registrationCreateRequestSchema = z
  .strictObject({ ...registrationCreateFields, ...registrantFields })
  .openapi('WebAuthnRegistrationCreateRequest');

export const registrationCreateInputSchema = z.strictObject({
  ...registrationCreateFields,
  user_id: userIdSchema,
});

export type RegistrationCreateRequest = z.infer<typeof registrationCreateInputSchema>;

export const registrationCreateResponseSchema = z
  .object({ user_id: z.string(), webauthn_credential_id: z.string() })
  .openapi('WebAuthnRegistrationCreateResponse');

export const authenticationBeginRequestSchema = z
  .strictObject({
    domain,
    user_id: userIdSchema.optional().openapi({
      description:
        "Limits the sign-in to this user's credentials (needs the secret key). Without it, any passkey of the domain may answer (discoverable credentials).",
    }),
  })
  .openapi('WebAuthnAuthenticationBeginRequest');

export type AuthenticationBeginRequest = z.infer<typeof authenticationBeginRequestSchema>;

export const requestOptionsSchema = z
  .object({
    publicKey: z.object({
      challenge: z.string().openapi({ description: 'base64url' }),
      rpId: z.string(),
      allowCredentials: z.array(credentialDescriptor),
      userVerification,
      timeout: z.int().openapi({ description: 'Milliseconds; the challenge expires with it.' }),
    }),
  })
  .openapi('WebAuthnRequestOptions');

export type RequestOptions = z.infer<typeof requestOptionsSchema>;

export const authenticationBeginResponseSchema = z
  .object({
    public_key_credential_request_options: requestOptionsSchema,
    user_id: z.string().optional(),
  })
  .openapi('WebAuthnAuthenticationBeginResponse');

export const authenticationCompleteRequestSchema = z
  .strictObject({
    public_key_credential: authenticationCredentialSchema,
    device_fingerprint: deviceFingerprintSchema.optional(),
    ...sessionFieldsSchema,
  })
  .openapi('WebAuthnAuthenticationCompleteRequest');

export type AuthenticationCompleteRequest = z.infer<typeof authenticationCompleteRequestSchema>;

export const authenticationCompleteResponseSchema = z
  .object({ user_id: z.string(), webauthn_credential_id: z.string(), ...issuedSessionSchema })
  .openapi('WebAuthnAuthenticationCompleteResponse');

export type AuthenticationCompleteResponse = z.infer<typeof authenticationCompleteResponseSchema>;
