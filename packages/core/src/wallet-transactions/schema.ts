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

export const sendTransactionRequestSchema = z
  .strictObject({
    eth_transaction: sendEthTransactionSchema.openapi({
      description:
        'For ethereum wallets: the nonce, gas and EIP-1559 fees are filled by Latchkey (docs/wallets.md, "Sending").',
    }),
    idempotency_key: z.string().min(1).max(200).optional().openapi({
      description: 'A second send of this wallet with the same key answers the first one and sends nothing.',
    }),
  })
  .openapi('SendTransactionRequest');

export type SendTransactionRequest = z.infer<typeof sendTransactionRequestSchema>;

export const sendTransactionResponseSchema = z
  .object({
    transaction_id: z.string(),
    transaction_hash: z.string().nullable(),
    status: z.enum(WALLET_TRANSACTION_STATUSES).openapi({
      description:
        '`submitted` once the node holds it; `signed` when the node could not be reached to say so (it is broadcast again, docs/wallets.md).',
    }),
    nonce: z.int(),
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
    chain_id: z.string(),
    nonce: z.int(),
    kind: z.enum(['send', 'speed_up', 'cancel']),
    status: z.enum(WALLET_TRANSACTION_STATUSES),
    to: z.string(),
    value: z.string(),
    data: z.string().nullable(),
    gas_limit: z.string(),
    max_fee_per_gas: z.string(),
    max_priority_fee_per_gas: z.string(),
    transaction_hash: z.string().nullable(),
    replaces: z.string().nullable(),
    replaced_by: z.string().nullable(),
    idempotency_key: z.string().nullable(),
    block_number: z.string().nullable(),
    gas_used: z.string().nullable(),
    effective_gas_price: z.string().nullable(),
    fee: z.string().nullable().openapi({ description: 'Wei paid: gas used × effective gas price.' }),
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
