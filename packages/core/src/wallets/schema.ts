import { z } from '@hono/zod-openapi';
import { TYPED_DATA_LIMITS } from '../chains/typed-data-bounds.js';
import { boundedRecord } from '../shared/bounded-record.js';
import { nextCursorSchema, pageQueryFields } from '../shared/page.js';
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
  ...pageQueryFields,
});

export const listWalletsResponseSchema = z
  .object({
    wallets: z.array(walletSchema),
    next_cursor: nextCursorSchema(),
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

const decimal = (what: string) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,77})$/, `${what}: a non-negative integer as a decimal string.`)
    .openapi({ description: `${what}, a non-negative integer as a decimal string.`, example: '21000' });
const evmChainId = z
  .string()
  .regex(/^[1-9][0-9]{0,19}$/, 'An EVM chain id, as a decimal string.')
  .openapi({ description: 'The EVM chain id as a decimal string (EIP-155), e.g. "1".', example: '1' });

export const ethTransactionFieldsSchema = z
  .strictObject({
    chain_id: evmChainId,
    to: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'An EVM address: 0x and 40 hex digits.'),
    value: decimal('Wei sent').optional(),
    data: z
      .string()
      .max(262_146)
      .regex(/^0x(?:[0-9a-fA-F]{2})*$/, 'Calldata: 0x and hex bytes.')
      .optional(),
    nonce: decimal('The nonce'),
    gas_limit: decimal('The gas limit'),
    max_fee_per_gas: decimal('EIP-1559 max fee per gas (wei)').optional(),
    max_priority_fee_per_gas: decimal('EIP-1559 max priority fee per gas (wei)').optional(),
    gas_price: decimal('Legacy gas price (wei)').optional(),
    type: z
      .union([z.enum(['legacy', 'eip1559']), z.literal(0), z.literal(2)])
      .optional()
      .openapi({
        description:
          '`eip1559` (or 2) or `legacy` (or 0, EIP-155); when absent, legacy if `gas_price` is given, else EIP-1559.',
      }),
  })
  .openapi('EthTransactionFields');

export const ethTransactionSerializedSchema = z
  .strictObject({
    serialized: z
      .string()
      .min(4)
      .max(300_000)
      .openapi({ description: 'The unsigned transaction as serialized for signing, 0x-hex.' }),
    chain_id: evmChainId.optional().openapi({ description: "When given, must equal the transaction's." }),
  })
  .openapi('EthTransactionSerialized');

export const signTransactionRequestSchema = z
  .strictObject({
    sol_transaction: z
      .strictObject({
        transaction: z
          .string()
          .min(1)
          .max(20_000)
          .openapi({ description: 'The serialized transaction in `encoding`.' }),
        encoding: z.enum(['base64', 'base58']).default('base64'),
      })
      .optional()
      .openapi({ description: 'For solana wallets: a legacy or v0 transaction.' }),
    eth_transaction: z
      .union([ethTransactionFieldsSchema, ethTransactionSerializedSchema])
      .optional()
      .openapi({ description: 'For ethereum wallets: EIP-1559 or legacy EIP-155, as fields or serialized.' }),
    btc_psbt: z
      .strictObject({
        psbt: z.string().min(1).max(400_000).openapi({ description: 'A BIP-174 PSBT, base64.' }),
      })
      .optional()
      .openapi({ description: "For bitcoin wallets: the inputs paying the wallet's address are signed." }),
    xlm_transaction: z
      .strictObject({
        transaction: z
          .string()
          .min(1)
          .max(200_000)
          .openapi({ description: 'A TransactionEnvelope (v0, v1 or fee bump), base64 XDR.' }),
        network_passphrase: z.string().min(1).max(200).optional().openapi({
          description: "The network's passphrase; the wallet's network (public or testnet) when absent.",
        }),
      })
      .optional()
      .openapi({ description: 'For XLM wallets.' }),
  })
  .openapi('SignTransactionRequest', {
    description: 'Exactly one of `sol_transaction`, `eth_transaction`, `btc_psbt`, `xlm_transaction`.',
  });

export type SignTransactionRequest = z.infer<typeof signTransactionRequestSchema>;

export const signTransactionResponseSchema = z
  .object({
    wallet_id: z.string(),
    wallet: signingWalletSchema,
    signature: z.string().optional().openapi({
      description:
        "Solana: the wallet's base58 ed25519 signature (the transaction's id when it pays the fee). XLM: the wallet's signature, base64.",
    }),
    signed_transaction: z.string().openapi({
      description:
        "Solana: the signed transaction, encoded like the input. Ethereum: the signed raw transaction, 0x-hex. Bitcoin: the PSBT with the wallet's inputs signed (not finalised), base64. XLM: the envelope with the signature added, base64 XDR.",
    }),
    transaction_hash: z
      .string()
      .optional()
      .openapi({ description: "Ethereum and XLM: the transaction's hash, hex (0x-prefixed for ethereum)." }),
  })
  .openapi('SignTransactionResponse');

export const signMessageRequestSchema = z
  .strictObject({
    message: z.string().min(1).max(100_000).openapi({ description: 'The message, in `encoding`.' }),
    encoding: z
      .enum(['utf8', 'hex', 'base64'])
      .default('utf8')
      .openapi({ description: '`utf8` text (default), or bytes as `hex` (0x optional) or `base64`.' }),
  })
  .openapi('SignMessageRequest');

export type SignMessageRequest = z.infer<typeof signMessageRequestSchema>;

export const signMessageResponseSchema = z
  .object({
    wallet_id: z.string(),
    signature: z.string(),
    encoding: z.enum(['hex', 'base58', 'base64']).openapi({
      description:
        "The signature's encoding: `hex` (0x) for ethereum (65 bytes) and DOT, `base58` for solana, `base64` for XLM and bitcoin (BIP-322 witness).",
    }),
  })
  .openapi('SignMessageResponse');

export const signTypedDataRequestSchema = z
  .strictObject({
    typed_data: z
      .strictObject({
        // EIP712Domain has five fields; others are ignored, a few dozen at most are read.
        domain: boundedRecord(z.string(), z.unknown(), 32),
        types: boundedRecord(
          z.string().min(1).max(200),
          z.array(z.strictObject({ name: z.string().max(200), type: z.string().min(1).max(200) })).max(200),
          TYPED_DATA_LIMITS.types + 1, // and EIP712Domain
        ),
        primaryType: z.string().min(1).max(200),
        message: boundedRecord(z.string(), z.unknown(), TYPED_DATA_LIMITS.fields),
      })
      .openapi({ description: 'EIP-712 typed data as `eth_signTypedData_v4` takes it.' }),
  })
  .openapi('SignTypedDataRequest');

export type SignTypedDataRequest = z.infer<typeof signTypedDataRequestSchema>;

export const signTypedDataResponseSchema = z
  .object({
    wallet_id: z.string(),
    signature: z.string().openapi({ description: '0x-hex, 65 bytes (r ‖ s ‖ v).' }),
  })
  .openapi('SignTypedDataResponse');
