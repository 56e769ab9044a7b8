/**
 * The error types only magic-links/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const magicLinksErrors = {
  magic_link_expired: { status: 401, message: 'The magic link has expired; ask for a new one.' },
  magic_link_used: { status: 401, message: 'The magic link was already used; ask for a new one.' },
  magic_link_too_many_attempts: {
    status: 401,
    message: 'The magic link was tried from too many other devices and no longer works; ask for a new one.',
  },
  magic_link_not_found: { status: 404, message: 'No magic link matches this token.' },
} as const satisfies Record<string, { status: number; message: string }>;
