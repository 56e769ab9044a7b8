/**
 * The error types only sso/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const ssoErrors = {
  sso_not_configured: {
    status: 501,
    message:
      'SSO sign-in is not set up on this server: createLatchkey needs `sso.callbackUrl`, the callback URL registered with identity providers.',
  },
  sso_connection_not_found: {
    status: 404,
    message: 'No SSO connection matches: the organization has none, or no organization of the App matches.',
  },
  sso_connection_exists: {
    status: 409,
    message: 'The organization already has an SSO connection; change it with PATCH or delete it first.',
  },
  sso_email_domain_taken: {
    status: 409,
    message: "Another organization's SSO connection of the App already claims this email domain.",
  },
  sso_connection_in_use: {
    status: 409,
    message:
      'The organization requires SSO (settings.sso_required): turn that off before deleting its connection.',
  },
  sso_email_domain_not_allowed: {
    status: 403,
    message:
      "The identity provider vouched for an email outside the connection's email domains: it cannot sign in through this organization.",
  },
  sso_email_not_verified: {
    status: 403,
    message:
      'The identity provider gave no email it says is verified: SSO signs users in by verified email only.',
  },
  sso_token_not_found: { status: 404, message: 'No SSO sign-in matches this token.' },
  sso_token_used: { status: 401, message: 'The SSO token was already used; sign in again.' },
  sso_token_expired: { status: 401, message: 'The SSO token has expired; sign in again.' },
} as const satisfies Record<string, { status: number; message: string }>;
