/**
 * The error types only balances/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const balancesErrors = {
  token_wallet_type_mismatch: {
    status: 400,
    message: "This token does not suit the wallet's type (see docs/balances.md for the token table).",
  },
  token_not_on_network: {
    status: 400,
    message: "This token has no known address on the wallet's network (see docs/balances.md).",
  },
} as const satisfies Record<string, { status: number; message: string }>;
