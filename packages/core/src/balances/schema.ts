import { z } from '@hono/zod-openapi';
import { walletSchema } from '../wallets/schema.js';
import { TOKEN_SYMBOLS } from './tokens.js';

export const tokenSymbolSchema = z.enum(TOKEN_SYMBOLS).openapi({
  description:
    '`ethereum`, `AVAX`, `MATIC`, `USDC`, `USDT` and `LINK` suit ethereum wallets; `solana`, `USDC` and `USDT` solana wallets; `DOT` DOT wallets; `XLM` XLM wallets.',
});

export const walletBalanceRequestSchema = z
  .strictObject({
    token_symbol: tokenSymbolSchema,
    wallet_id: z.string().min(1).max(100),
  })
  .openapi('WalletBalanceRequest');

export type WalletBalanceRequest = z.infer<typeof walletBalanceRequestSchema>;

export const walletBalanceResponseSchema = z
  .object({
    balance: z.string().openapi({
      description:
        "The amount in whole tokens as an exact decimal: digits, a point only when there is a fraction, no trailing zeros, no exponent (e.g. `0`, `12`, `0.000001`, `1.5`). Read from the wallet's network (mainnet or its test network).",
      example: '1.5',
    }),
    token_symbol: tokenSymbolSchema,
    wallet: walletSchema,
  })
  .openapi('WalletBalanceResponse');

export type WalletBalanceResponse = z.infer<typeof walletBalanceResponseSchema>;
