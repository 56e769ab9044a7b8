import { z } from '@hono/zod-openapi';
import { nextCursorSchema, pageQueryFields } from '../shared/page.js';
import { WALLET_TRANSACTION_STATUSES } from './repo.js';

const decimal = (what: string) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,77})$/, `${what}: a non-negative integer as a decimal string.`)
    .openapi({ description: `${what}, a non-negative integer as a decimal string.` });

const evmChainId = z
  .string()
  .regex(/^[1-9][0-9]{0,19}$/, 'An EVM chain id, as a decimal string.')
  .openapi({ description: 'The EVM chain id as a decimal string (EIP-155), e.g. "1".', example: '1' });

export const sendEthTransactionSchema = z
  .strictObject({
    chain_id: evmChainId,
    to: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'An EVM address: 0x and 40 hex digits.'),
    value: decimal('Wei sent').optional(),
    data: z
      .string()
      .max(262_146)
      .regex(/^0x(?:[0-9a-fA-F]{2})*$/, 'Calldata: 0x and hex bytes.')
      .optional(),
    gas_limit: decimal('The gas limit').optional().openapi({
      description: 'The gas limit; when absent, `eth_estimateGas` with a 20% margin.',
    }),
    max_fee_per_gas: decimal('EIP-1559 max fee per gas (wei)').optional().openapi({
      description: "When absent: twice the next block's base fee plus the priority fee (`eth_feeHistory`).",
    }),
    max_priority_fee_per_gas: decimal('EIP-1559 max priority fee per gas (wei)').optional().openapi({
      description: 'When absent: the median reward of recent blocks (`eth_feeHistory`), at least 1 gwei.',
    }),
  })
  .openapi('SendEthTransaction');

const U64_MAX = 2n ** 64n - 1n;

export const sendSolTransactionSchema = z
  .strictObject({
    transaction: z.string().min(1).max(20_000).openapi({
      description:
        'The serialized legacy or v0 transaction in `encoding`, unsigned or signed by others; its fee payer must be the wallet. A blockhash of 32 zero bytes (base58 `11111111111111111111111111111111`) is filled with a recent one; any other is kept.',
    }),
    encoding: z.enum(['base64', 'base58']).default('base64'),
  })
  .openapi('SendSolTransaction');

export const sendSolTransferSchema = z
  .strictObject({
    to: z
      .string()
      .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'A Solana address: base58, 32 bytes.')
      .openapi({ description: 'The recipient, a base58 Solana address.' }),
    lamports: z
      .string()
      .regex(/^[1-9][0-9]{0,19}$/, 'Lamports: a positive integer as a decimal string.')
      .refine((v) => !/^[0-9]+$/.test(v) || BigInt(v) <= U64_MAX, 'Lamports: at most 2^64 - 1.')
      .openapi({
        description: 'Lamports sent, a positive integer (u64) as a decimal string.',
        example: '1000000',
      }),
  })
  .openapi('SendSolTransfer');

export const sendTransactionRequestSchema = z
  .strictObject({
    eth_transaction: sendEthTransactionSchema.optional().openapi({
      description:
        'For ethereum wallets: the nonce, gas and EIP-1559 fees are filled by Latchkey (docs/wallets.md, "Sending").',
    }),
    sol_transaction: sendSolTransactionSchema.optional().openapi({
      description:
        'For solana wallets: a transaction the wallet pays for, signed under the policies and sent (docs/wallets.md, "Sending").',
    }),
    sol_transfer: sendSolTransferSchema.optional().openapi({
      description: 'For solana wallets: a System transfer of lamports that Latchkey builds, signs and sends.',
    }),
    idempotency_key: z.string().min(1).max(200).optional().openapi({
      description: 'A second send of this wallet with the same key answers the first one and sends nothing.',
    }),
  })
  .openapi('SendTransactionRequest', {
    description: 'Exactly one of `eth_transaction`, `sol_transaction` and `sol_transfer`.',
  });

export type SendTransactionRequest = z.infer<typeof sendTransactionRequestSchema>;

export const sendTransactionResponseSchema = z
  .object({
    transaction_id: z.string(),
    transaction_hash: z.string().nullable(),
    status: z.enum(WALLET_TRANSACTION_STATUSES).openapi({
      description:
        '`submitted` once the node holds it; `signed` when the node could not be reached to say so (it is broadcast again, docs/wallets.md).',
    }),
    nonce: z.int().nullable().openapi({ description: 'The EVM nonce; null for Solana, which has none.' }),
  })
  .openapi('SendTransactionResponse');

export const replaceTransactionRequestSchema = z
  .strictObject({
    max_fee_per_gas: decimal('EIP-1559 max fee per gas (wei)').optional(),
    max_priority_fee_per_gas: decimal('EIP-1559 max priority fee per gas (wei)').optional(),
  })
  .openapi('ReplaceTransactionRequest', {
    description:
      'Fees for the replacement; each is at least 1.125× (plus 1 wei) the replaced one and the current estimate when absent or lower.',
  });

export type ReplaceTransactionRequest = z.infer<typeof replaceTransactionRequestSchema>;

export const walletTransactionSchema = z
  .object({
    id: z.string(),
    wallet_id: z.string(),
    chain_id: z.string().openapi({
      description:
        'The EVM chain id (decimal), or the Solana cluster as CAIP-2 (`solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp` mainnet, `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1` devnet).',
    }),
    nonce: z.int().nullable().openapi({ description: 'EVM; null for Solana.' }),
    kind: z.enum(['send', 'speed_up', 'cancel']),
    status: z.enum(WALLET_TRANSACTION_STATUSES),
    to: z.string().nullable().openapi({
      description: 'The recipient (EVM; a Solana `sol_transfer`); null for a `sol_transaction`.',
    }),
    value: z.string().openapi({
      description: 'Wei sent (EVM); lamports the System program moves from the wallet (Solana).',
    }),
    data: z.string().nullable(),
    gas_limit: z.string().nullable().openapi({ description: 'EVM; null for Solana.' }),
    max_fee_per_gas: z.string().nullable().openapi({ description: 'EVM; null for Solana.' }),
    max_priority_fee_per_gas: z.string().nullable().openapi({ description: 'EVM; null for Solana.' }),
    transaction_hash: z.string().nullable().openapi({
      description: "The hash, 0x-hex (EVM); the fee payer's signature, base58 (Solana).",
    }),
    replaces: z.string().nullable(),
    replaced_by: z.string().nullable(),
    idempotency_key: z.string().nullable(),
    block_number: z.string().nullable().openapi({ description: 'The block (EVM) or slot (Solana).' }),
    gas_used: z.string().nullable(),
    effective_gas_price: z.string().nullable(),
    fee: z
      .string()
      .nullable()
      .openapi({ description: 'Wei paid: gas used × effective gas price (EVM); lamports paid (Solana).' }),
    error: z.string().nullable(),
    created_at: z.int(),
    updated_at: z.int(),
  })
  .openapi('WalletTransaction');

export type WalletTransaction = z.infer<typeof walletTransactionSchema>;

export const listTransactionsQuerySchema = z.strictObject(pageQueryFields);

export const listTransactionsResponseSchema = z
  .object({
    transactions: z.array(walletTransactionSchema),
    next_cursor: nextCursorSchema('older transactions'),
  })
  .openapi('ListWalletTransactionsResponse');
