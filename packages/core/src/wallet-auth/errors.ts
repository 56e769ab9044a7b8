/**
 * The error types only wallet-auth/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const walletAuthErrors = {
  invalid_wallet_address: {
    status: 400,
    message:
      'The address is not one of this wallet type: 0x + 40 hex for ethereum (a mixed-case one with a valid EIP-55 checksum), 32 bytes of base58 for solana.',
  },
  wallet_challenge_not_found: {
    status: 401,
    message: 'No sign-in challenge of this App has this nonce, or none was issued for this address.',
  },
  wallet_challenge_used: {
    status: 401,
    message: 'This sign-in challenge was already used (by a right or a wrong signature); ask for a new one.',
  },
  wallet_challenge_expired: {
    status: 401,
    message: 'This sign-in challenge has expired; ask for a new one.',
  },
  wallet_address_mismatch: {
    status: 401,
    message: 'The challenge was issued for another wallet address or type; ask for one for this wallet.',
  },
  invalid_signature: {
    status: 401,
    message: "The signature is not this wallet's signature over the challenge message.",
  },
  wallet_belongs_to_another_user: {
    status: 409,
    message: 'This wallet address belongs to another user of this App.',
  },
} as const satisfies Record<string, { status: number; message: string }>;
