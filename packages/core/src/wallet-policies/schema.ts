import { z } from '@hono/zod-openapi';
import { WALLET_TYPES } from '../chains/types.js';
import { nextCursorSchema, pageQueryFields } from '../shared/page.js';
import { policyRuleSchema, policyRulesSchema, SIGNING_METHODS } from './rules.js';

const name = z.string().trim().min(1).max(200);
const id = z.string().min(1).max(100);

export const createPolicyRequestSchema = z
  .strictObject({
    name,
    wallet_id: id
      .optional()
      .openapi({ description: 'The one wallet the policy governs; absent: every wallet of the App.' }),
    rules: policyRulesSchema,
  })
  .openapi('CreateWalletPolicyRequest');

export type CreatePolicyRequest = z.infer<typeof createPolicyRequestSchema>;

export const updatePolicyRequestSchema = z
  .strictObject({ name: name.optional(), rules: policyRulesSchema.optional() })
  .openapi('UpdateWalletPolicyRequest');

export type UpdatePolicyRequest = z.infer<typeof updatePolicyRequestSchema>;

export const policySchema = z
  .object({
    policy_id: z.string(),
    app_id: z.string(),
    name: z.string(),
    wallet_id: z
      .string()
      .nullable()
      .openapi({ description: 'Null: the policy governs every wallet of the App.' }),
    rules: z.array(policyRuleSchema),
    created_at: z.int(),
    updated_at: z.int(),
  })
  .openapi('WalletPolicy');

export type WalletPolicy = z.infer<typeof policySchema>;

const nextCursor = nextCursorSchema();

export const listPoliciesQuerySchema = z.strictObject({ wallet_id: id.optional(), ...pageQueryFields });

export const listPoliciesResponseSchema = z
  .object({ policies: z.array(policySchema), next_cursor: nextCursor })
  .openapi('ListWalletPoliciesResponse');

export const deletePolicyResponseSchema = z
  .object({ policy_id: z.string(), deleted: z.literal(true) })
  .openapi('DeleteWalletPolicyResponse');

export const listSignaturesQuerySchema = z.strictObject(pageQueryFields);

export const signatureEntrySchema = z
  .object({
    id: z.string(),
    wallet_id: z.string(),
    method: z.enum(SIGNING_METHODS),
    chain: z.enum(WALLET_TYPES),
    payload_digest: z.string().openapi({ description: 'Hex SHA-256 of the payload signed or refused.' }),
    decision: z.enum(['allowed', 'refused', 'failed']).openapi({
      description:
        '`allowed`: signed; `refused`: a policy rule refused it; `failed`: allowed, but signing failed.',
    }),
    policy_id: z.string().nullable(),
    rule_index: z.int().nullable(),
    rule_kind: z.string().nullable(),
    error_type: z.string().nullable(),
    key_kind: z.enum(['secret', 'public']).openapi({ description: 'The kind of API key that asked.' }),
    created_at: z.int(),
  })
  .openapi('WalletSignatureEntry');

export const listSignaturesResponseSchema = z
  .object({ signatures: z.array(signatureEntrySchema), next_cursor: nextCursor })
  .openapi('ListWalletSignaturesResponse');
