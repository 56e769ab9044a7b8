/**
 * The error types only otps/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const otpsErrors = {
  otp_code_invalid: { status: 401, message: 'The passcode is wrong.' },
  otp_code_expired: { status: 401, message: 'The passcode has expired; send a new one.' },
  otp_code_used: { status: 401, message: 'The passcode was already used; send a new one.' },
  otp_code_too_many_attempts: {
    status: 401,
    message: 'Too many wrong passcodes; this one no longer works. Send a new one.',
  },
  otp_code_not_found: {
    status: 404,
    message: 'No passcode was sent to this method, or the method is unknown.',
  },
} as const satisfies Record<string, { status: number; message: string }>;
