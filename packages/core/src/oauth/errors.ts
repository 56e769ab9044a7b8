/**
 * The error types only oauth/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const oauthErrors = {
  oauth_state_used: {
    status: 400,
    message: 'This sign-in was already completed: start it again from the App.',
  },
  oauth_state_expired: {
    status: 400,
    message: 'This sign-in took longer than 10 minutes: start it again from the App.',
  },
  oauth_code_verifier_mismatch: {
    status: 400,
    message:
      'The code_verifier is missing or does not match the code_challenge the sign-in was started with.',
  },
  oauth_not_configured: {
    status: 501,
    message:
      'OAuth sign-in is not set up on this server: createLatchkey needs `oauth.callbackUrl`, the callback URL registered with providers.',
  },
  oauth_provider_not_found: {
    status: 404,
    message: 'The App has no OAuth provider with this id (settings.oauth.providers).',
  },
  oauth_provider_misconfigured: {
    status: 400,
    message:
      "The provider's settings cannot be used: a missing client secret or key, or an http issuer this server does not allow.",
  },
  oauth_token_not_found: { status: 404, message: 'No OAuth sign-in matches this token.' },
  oauth_token_used: { status: 401, message: 'The OAuth token was already used; sign in again.' },
  oauth_token_expired: { status: 401, message: 'The OAuth token has expired; sign in again.' },
  oauth_identity_linked_elsewhere: {
    status: 409,
    message: 'This provider account is already linked to another user.',
  },
  oauth_link_not_found: { status: 404, message: 'No linked provider account has this id.' },
  last_sign_in_method: {
    status: 409,
    message: 'This is the only way the user can sign in; add another before removing it.',
  },
} as const satisfies Record<string, { status: number; message: string }>;
