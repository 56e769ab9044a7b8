/**
 * The error types only totps/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const totpsErrors = {
  totp_code_invalid: { status: 401, message: 'The TOTP code is wrong.' },
  totp_code_used: { status: 401, message: 'This TOTP code was already used; wait for the next one.' },
  totp_expired: {
    status: 401,
    message: 'The TOTP was not verified within its window; create a new one.',
  },
  recovery_code_invalid: { status: 401, message: 'The recovery code is wrong.' },
  recovery_code_used: { status: 401, message: 'This recovery code was already used.' },
  totp_not_found: {
    status: 404,
    message: 'No TOTP with this id, or the user has none (active or pending as needed).',
  },
  totp_already_active: {
    status: 409,
    message: 'The user already has an active TOTP; delete it before creating another.',
  },
  totp_locked: {
    status: 429,
    message: 'Too many wrong TOTP codes; try again after the time in Retry-After.',
  },
  recovery_code_locked: {
    status: 429,
    message: 'Too many wrong recovery codes; try again after the time in Retry-After.',
  },
} as const satisfies Record<string, { status: number; message: string }>;
