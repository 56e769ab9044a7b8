/**
 * The error types only password-auth/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const passwordAuthErrors = {
  weak_password: {
    status: 400,
    message:
      "The password is too easy to guess (its strength score is below the App's settings.passwords.min_score).",
  },
  breached_password: {
    status: 400,
    message: 'The password appears in a known data breach; choose another.',
  },
  invalid_credentials: {
    status: 401,
    message: 'The email or the password is wrong.',
  },
  reauthentication_required: {
    status: 401,
    message: "The session's last sign-in is older than this action allows; sign in again, then retry.",
  },
  password_reset_expired: { status: 401, message: 'The password reset link has expired; ask for a new one.' },
  password_reset_used: {
    status: 401,
    message: 'The password reset link was already used; ask for a new one.',
  },
  password_reset_not_found: { status: 404, message: 'No password reset link matches this token.' },
  password_locked: {
    status: 429,
    message: 'Too many wrong passwords for this account; try again after the time in Retry-After.',
  },
} as const satisfies Record<string, { status: number; message: string }>;
