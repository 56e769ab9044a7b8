/**
 * The error types only webhooks/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const webhooksErrors = {
  invalid_webhook_url: {
    status: 400,
    message:
      'The webhook URL must be an absolute https URL (plain http only for localhost), without credentials.',
  },
  webhook_url_not_allowed: {
    status: 400,
    message:
      'The webhook URL points at localhost or a loopback, private or other non-public address, which this server does not allow.',
  },
} as const satisfies Record<string, { status: number; message: string }>;
