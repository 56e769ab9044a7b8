import { z } from '@hono/zod-openapi';
import { WALLET_TYPES } from '../chains/types.js';

/** The signing methods a policy can name; the same names as the routes. */
export const SIGNING_METHODS = ['sign_message', 'sign_typed_data', 'sign_transaction'] as const;

const MAX_LIST = 1000;

/** Non-negative integers travel as decimal strings: wei and lamports outgrow JSON numbers. */
const amount = (unit: string) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,77})$/, `A non-negative integer in ${unit}, as a decimal string.`)
    .openapi({ description: `A non-negative integer in ${unit}, as a decimal string.`, example: '1000000' });

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'An EVM address: 0x and 40 hex digits.');
const evmChainId = z
  .string()
  .regex(/^[1-9][0-9]{0,19}$/, 'An EVM chain id, as a decimal string.')
  .openapi({ description: 'An EVM chain id as a decimal string, e.g. "1" for Ethereum mainnet.' });
const selector = z.string().regex(/^0x[0-9a-fA-F]{8}$/, 'A method selector: 0x and 8 hex digits.');
const solanaAddress = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'A base58 Solana address.');
const bitcoinAddress = z.string().regex(/^[0-9A-Za-z]{14,90}$/, 'A bitcoin address.');

const list = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(MAX_LIST);

/** EVM value rules apply to every chain, each counted apart, or to `chain_id` only. */
const onChain = { chain_id: evmChainId.optional() };

/** Token rules judge every token on every chain, or those listed in `tokens` on `chain_id`. */
const tokenScope = {
  chain_id: evmChainId.optional(),
  tokens: list(evmAddress)
    .optional()
    .openapi({ description: 'The token contracts the rule judges; absent: every token.' }),
};

/** A cap on one token: its contract on one chain, in the token's smallest unit. */
const oneToken = {
  chain_id: evmChainId,
  token: evmAddress.openapi({ description: 'The ERC-20 contract address.' }),
  max_amount: amount("the token's smallest unit"),
};

export const policyRuleSchema = z
  .discriminatedUnion('kind', [
    z
      .strictObject({ kind: z.literal('allowed_methods'), methods: list(z.enum(SIGNING_METHODS)) })
      .openapi({ description: 'Only these signing methods.' }),
    z
      .strictObject({ kind: z.literal('allowed_chains'), chains: list(z.enum(WALLET_TYPES)) })
      .openapi({ description: 'Only wallets of these types sign.' }),
    z
      .strictObject({ kind: z.literal('evm_chain_allowlist'), chain_ids: list(evmChainId) })
      .openapi({ description: 'EVM transactions and typed data only for these chain ids.' }),
    z
      .strictObject({ kind: z.literal('evm_to_allowlist'), addresses: list(evmAddress) })
      .openapi({ description: 'EVM transactions only to these addresses (contract creation refused).' }),
    z
      .strictObject({ kind: z.literal('evm_selector_allowlist'), selectors: list(selector) })
      .openapi({ description: 'EVM transactions with calldata only calling these method selectors.' }),
    z
      .strictObject({ kind: z.literal('evm_max_value'), max_wei: amount('wei'), ...onChain })
      .openapi({ description: 'At most this value per EVM transaction.' }),
    z
      .strictObject({ kind: z.literal('evm_daily_value'), max_wei: amount('wei'), ...onChain })
      .openapi({ description: 'At most this value per wallet and chain over any 24 hours.' }),
    z
      .strictObject({ kind: z.literal('solana_program_allowlist'), programs: list(solanaAddress) })
      .openapi({ description: 'Solana transactions invoking only these programs.' }),
    z
      .strictObject({ kind: z.literal('solana_max_lamports'), max_lamports: amount('lamports') })
      .openapi({ description: 'At most this many lamports moved out of the wallet per transaction.' }),
    z
      .strictObject({ kind: z.literal('solana_daily_lamports'), max_lamports: amount('lamports') })
      .openapi({ description: 'At most this many lamports moved out of the wallet over any 24 hours.' }),
    z.strictObject({ kind: z.literal('bitcoin_max_output_value'), max_sats: amount('satoshis') }).openapi({
      description: "At most this many satoshis paid, in total, to addresses not the wallet's own.",
    }),
    z
      .strictObject({ kind: z.literal('bitcoin_address_allowlist'), addresses: list(bitcoinAddress) })
      .openapi({ description: "Bitcoin outputs pay only these addresses (or the wallet's own)." }),
    z.strictObject({ kind: z.literal('evm_token_max_amount'), ...oneToken }).openapi({
      description:
        'At most this amount of the token transferred or approved per signature (calldata or permit); unreadable calldata or typed data for the token is refused.',
    }),
    z.strictObject({ kind: z.literal('evm_token_daily_amount'), ...oneToken }).openapi({
      description:
        'At most this amount of the token transferred or approved per wallet over any 24 hours; unreadable calldata or typed data for the token is refused.',
    }),
    z
      .strictObject({
        kind: z.literal('evm_token_recipient_allowlist'),
        addresses: list(evmAddress),
        ...tokenScope,
      })
      .openapi({
        description: 'Token transfers (transfer, transferFrom, EIP-3009) only to these addresses.',
      }),
    z
      .strictObject({
        kind: z.literal('evm_token_spender_allowlist'),
        addresses: list(evmAddress),
        ...tokenScope,
      })
      .openapi({
        description:
          'Token approvals and permits (EIP-2612, Permit2) only to these spenders; revocations (0) pass.',
      }),
    z
      .strictObject({
        kind: z.literal('evm_token_no_unlimited_approval'),
        unlimited_at: amount("the token's smallest unit").optional().openapi({
          description:
            "Approvals of at least this amount are refused. Absent: 2^255 (Permit2's uint160 allowances: 2^159).",
        }),
        ...tokenScope,
      })
      .openapi({ description: 'No unlimited (or too large) token approvals and permits.' }),
  ])
  .openapi('WalletPolicyRule');

export type PolicyRule = z.infer<typeof policyRuleSchema>;
export type PolicyRuleKind = PolicyRule['kind'];

export const policyRulesSchema = z.array(policyRuleSchema).min(1).max(50);
