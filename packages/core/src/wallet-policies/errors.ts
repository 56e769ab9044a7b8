/**
 * The error types only wallet-policies/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const walletPoliciesErrors = {
  policy_not_found: { status: 404, message: 'No wallet policy with this id.' },
  policy_limit_reached: {
    status: 409,
    message: 'The App already has as many wallet policies as it may keep (100); delete one first.',
  },
} as const satisfies Record<string, { status: number; message: string }>;
