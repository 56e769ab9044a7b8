import { z } from '@hono/zod-openapi';
import { issuedSessionSchema, sessionFieldsSchema } from '../sessions/schema.js';
import { deviceFingerprintSchema } from '../shared/device-fingerprint.js';
import { walletSchema } from '../wallets/schema.js';
import { SIGN_IN_WALLET_TYPES } from './repo.js';

const walletType = z.enum(SIGN_IN_WALLET_TYPES).openapi({ description: '`ethereum` or `solana`.' });

const publicAddress = z.string().min(1).max(100).openapi({
  description:
    'The wallet address: 0x + 40 hex for ethereum (any letter case; a mixed-case address must carry a valid EIP-55 checksum), base58 for solana.',
});

export const walletChallengeRequestSchema = z
  .strictObject({
    wallet_type: walletType,
    public_address: publicAddress,
    user_id: z.string().min(1).max(100).optional().openapi({
      description:
        'Needs the secret key. A wallet new to the App is added to this user instead of a new one; an address that belongs to another user is then refused.',
    }),
  })
  .openapi('WalletChallengeRequest');

export type WalletChallengeRequest = z.infer<typeof walletChallengeRequestSchema>;

export const walletChallengeResponseSchema = z
  .object({
    challenge: z.string().openapi({
      description:
        'The message to sign, exactly as given: EIP-4361 (Sign-In with Ethereum) for ethereum, Sign In With Solana for solana.',
    }),
    nonce: z.string().openapi({ description: "The message's single-use nonce." }),
    wallet_type: walletType,
    public_address: z
      .string()
      .openapi({ description: 'The address as the message names it (EIP-55 for ethereum).' }),
    expires_at: z
      .int()
      .openapi({ description: 'Unix seconds after which the challenge no longer verifies.' }),
  })
  .openapi('WalletChallengeResponse');

export type WalletChallengeResponse = z.infer<typeof walletChallengeResponseSchema>;

export const verifyWalletRequestSchema = z
  .strictObject({
    wallet_type: walletType,
    public_address: publicAddress,
    signature: z.string().min(1).max(200).openapi({
      description:
        "The wallet's signature over the challenge: ethereum, the 65-byte personal_sign signature (r‖s‖v) as base64 or 0x-hex; solana, the 64-byte ed25519 signature as base58.",
    }),
    nonce: z.string().min(1).max(100).optional().openapi({
      description:
        'The nonce of the challenge signed. Without it, the challenge issued last for this address is the one checked.',
    }),
    device_fingerprint: deviceFingerprintSchema.optional(),
    ...sessionFieldsSchema,
  })
  .openapi('VerifyWalletRequest');

export type VerifyWalletRequest = z.infer<typeof verifyWalletRequestSchema>;

export const verifyWalletResponseSchema = z
  .object({
    user_id: z.string(),
    wallet_id: z.string(),
    user_created: z.boolean().openapi({ description: 'Whether this verify created the user.' }),
    wallet: walletSchema,
    ...issuedSessionSchema,
  })
  .openapi('VerifyWalletResponse');

export type VerifyWalletResponse = z.infer<typeof verifyWalletResponseSchema>;
