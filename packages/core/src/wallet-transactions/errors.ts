/**
 * The error types only wallet-transactions/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const walletTransactionsErrors = {
  insufficient_funds: {
    status: 400,
    message: "The wallet's balance on this chain does not cover the value and the most the gas may cost.",
  },
  transaction_reverted: {
    status: 400,
    message: 'The chain reports that this transaction would revert (its gas could not be estimated).',
  },
  transaction_rejected: {
    status: 400,
    message: "The chain's node refused the signed transaction; the message gives its reason.",
  },
  fee_payer_not_wallet: {
    status: 400,
    message: 'A transaction the wallet sends must name the wallet as its fee payer (the first account key).',
  },
  transaction_not_found: { status: 404, message: 'This wallet has no transaction with this id.' },
  nonce_conflict: {
    status: 409,
    message:
      "The chain already holds another transaction at this wallet's nonce (sent from outside Latchkey, or the replacement's fees are too low); retry the send.",
  },
  transaction_not_replaceable: {
    status: 409,
    message:
      'Only a submitted EVM transaction, not yet confirmed, failed or replaced, can be sped up or cancelled (a Solana transaction has no nonce to replace it at).',
  },
} as const satisfies Record<string, { status: number; message: string }>;
