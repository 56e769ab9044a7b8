/**
 * The error types only wallets/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const walletsErrors = {
  wallet_read_only: {
    status: 400,
    message: 'This wallet is read-only: Latchkey holds no key for it.',
  },
  invalid_recipient_key: {
    status: 400,
    message: 'The recipient public key is not a P-256 (SEC1) or X25519 public key.',
  },
} as const satisfies Record<string, { status: number; message: string }>;
