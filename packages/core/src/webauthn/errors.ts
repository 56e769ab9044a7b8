/**
 * The error types only webauthn/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const webauthnErrors = {
  webauthn_domain_not_allowed: {
    status: 400,
    message: "The domain is not one of the App's WebAuthn domains (settings.webauthn.allowed_domains).",
  },
  invalid_webauthn_credential: {
    status: 400,
    message: 'The public key credential could not be read as a WebAuthn credential.',
  },
  webauthn_challenge_not_found: {
    status: 401,
    message: 'The credential answers no challenge this App issued for this ceremony; begin again.',
  },
  webauthn_challenge_used: {
    status: 401,
    message: 'The challenge this credential answers was already used; begin again.',
  },
  webauthn_challenge_expired: {
    status: 401,
    message: 'The challenge this credential answers has expired (the options timeout); begin again.',
  },
  webauthn_origin_mismatch: {
    status: 401,
    message: 'The credential was made on a web origin that may not use this domain.',
  },
  webauthn_rp_id_mismatch: {
    status: 401,
    message: 'The authenticator signed for another relying-party id than the domain of the challenge.',
  },
  webauthn_verification_failed: {
    status: 401,
    message: "The credential's signature, attestation or flags did not verify.",
  },
  webauthn_credential_not_allowed: {
    status: 401,
    message: 'This credential is not registered for this user and domain.',
  },
  webauthn_counter_regression: {
    status: 401,
    message:
      "The authenticator's signature counter did not advance: the credential may have been cloned. Nothing was signed in.",
  },
  webauthn_credential_not_found: { status: 404, message: 'No WebAuthn credential with this id.' },
  duplicate_webauthn_credential: {
    status: 409,
    message: 'This credential is already registered in this App.',
  },
} as const satisfies Record<string, { status: number; message: string }>;
