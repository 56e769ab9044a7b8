import { z } from '@hono/zod-openapi';
import { WALLET_TYPES } from './repo.js';

export const walletTypeSchema = z
  .enum(WALLET_TYPES)
  .openapi({ description: '`ethereum`, `solana`, `bitcoin`, `DOT` or `XLM`.' });

export const walletSchema = z
  .object({
    id: z.string(),
    app_id: z.string(),
    user_id: z.string(),
    public_address: z.string(),
    wallet_type: walletTypeSchema,
    verified: z.boolean(),
    is_default: z.boolean(),
    is_read_only: z.boolean(),
    is_imported: z.boolean(),
    updated_at: z.int(),
    created_at: z.int(),
  })
  .openapi('Wallet');

export type Wallet = z.infer<typeof walletSchema>;

export const signingWalletSchema = walletSchema
  .extend({
    wallet_client_type: z.string().nullable(),
    wallet_pk_id: z.string(),
    delegated: z.boolean(),
  })
  .openapi('SigningWallet');

export const createWalletRequestSchema = z
  .strictObject({ wallet_type: walletTypeSchema, user_id: z.string().min(1).max(100) })
  .openapi('CreateWalletRequest');

export const listWalletsQuerySchema = z.strictObject({
  user_id: z.string().min(1).max(100).optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .openapi({ description: 'Page size, 1–1000; 100 when absent.' }),
  cursor: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: 'The `next_cursor` of the previous page.' }),
});

export const listWalletsResponseSchema = z
  .object({
    wallets: z.array(walletSchema),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: 'Pass as `cursor` for the next page; null on the last.' }),
  })
  .openapi('ListWalletsResponse');

export const importWalletRequestSchema = z
  .strictObject({
    user_id: z.string().min(1).max(100),
    wallet_type: walletTypeSchema,
    mnemonic: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .openapi({ description: 'A BIP39 phrase; the wallet is derived by the same path as created wallets.' }),
    private_key: z
      .string()
      .min(1)
      .max(300)
      .optional()
      .openapi({ description: "The chain's usual private-key encoding." }),
  })
  .openapi('ImportWalletRequest');

export type ImportWalletRequest = z.infer<typeof importWalletRequestSchema>;

export const exportWalletRequestSchema = z
  .strictObject({
    recipient_public_key: z.string().min(1).max(200).openapi({
      description:
        'P-256 (SEC1, 33 or 65 bytes) or X25519 (32 bytes) public key, hex or base64url; the key is encrypted to it.',
    }),
  })
  .openapi('ExportWalletRequest');

export const exportWalletResponseSchema = z
  .object({
    wallet_id: z.string(),
    format: z.literal('private_key'),
    scheme: z.string(),
    encapsulated_key: z.string(),
    ciphertext: z.string(),
  })
  .openapi('ExportWalletResponse');

export const signTransactionRequestSchema = z
  .strictObject({
    sol_transaction: z.strictObject({
      transaction: z
        .string()
        .min(1)
        .max(20_000)
        .openapi({ description: 'The serialized transaction in `encoding`.' }),
      encoding: z.enum(['base64', 'base58']).default('base64'),
    }),
  })
  .openapi('SignTransactionRequest');

export type SignTransactionRequest = z.infer<typeof signTransactionRequestSchema>;

export const signTransactionResponseSchema = z
  .object({
    wallet_id: z.string(),
    wallet: signingWalletSchema,
    signature: z
      .string()
      .openapi({ description: "Base58 ed25519 signature: the transaction's signature for this wallet." }),
    signed_transaction: z
      .string()
      .openapi({ description: 'The signed transaction, encoded like the input.' }),
  })
  .openapi('SignTransactionResponse');
