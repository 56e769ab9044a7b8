import { describe, expect, it } from 'vitest';
import { policyRuleSchema, policyRulesSchema } from '../src/wallet-policies/rules.js';
import { createPolicyRequestSchema, updatePolicyRequestSchema } from '../src/wallet-policies/schema.js';

const ok = (schema: { safeParse(x: unknown): { success: boolean } }, value: unknown) =>
  schema.safeParse(value).success;
const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';

/** The bounds docs/wallet-policies.md states, at each edge. */
describe('wallet policy schema bounds', () => {
  it('lists hold 1 to 1000 entries', () => {
    const list = (n: number) => ({
      kind: 'evm_token_recipient_allowlist',
      addresses: Array.from({ length: n }, (_, i) => address(i)),
    });
    expect(ok(policyRuleSchema, list(1))).toBe(true);
    expect(ok(policyRuleSchema, list(1000))).toBe(true);
    expect(ok(policyRuleSchema, list(0))).toBe(false);
    expect(ok(policyRuleSchema, list(1001))).toBe(false);
  });

  it('amounts are decimal strings of up to 78 digits without leading zeros', () => {
    const cap = (max_amount: string) => ({
      kind: 'evm_token_max_amount',
      chain_id: '1',
      token: USDC,
      max_amount,
    });
    expect(ok(policyRuleSchema, cap('0'))).toBe(true);
    expect(ok(policyRuleSchema, cap('9'.repeat(78)))).toBe(true);
    expect(ok(policyRuleSchema, cap('1'.repeat(79)))).toBe(false);
    expect(ok(policyRuleSchema, cap('01'))).toBe(false);
    expect(ok(policyRuleSchema, { kind: 'evm_max_value', max_wei: '007' })).toBe(false);
  });

  it('selectors are exactly 4 bytes, addresses exactly 20', () => {
    const sel = (s: string) => ({ kind: 'evm_selector_allowlist', selectors: [s] });
    expect(ok(policyRuleSchema, sel('0xa9059cbb'))).toBe(true);
    expect(ok(policyRuleSchema, sel('0xa9059cb'))).toBe(false);
    expect(ok(policyRuleSchema, sel('0xa9059cbb00'))).toBe(false);
    const spender = (a: string) => ({ kind: 'evm_token_spender_allowlist', addresses: [a] });
    expect(ok(policyRuleSchema, spender(USDC.slice(0, -1)))).toBe(false);
    expect(ok(policyRuleSchema, { kind: 'evm_token_no_unlimited_approval', tokens: [`${USDC}0`] })).toBe(
      false,
    );
  });

  it('a policy holds 1 to 50 rules and a name of 1 to 200 characters, and nothing else', () => {
    const rule = { kind: 'evm_token_no_unlimited_approval' };
    const rules = (n: number) => Array.from({ length: n }, () => rule);
    expect(ok(policyRulesSchema, rules(50))).toBe(true);
    expect(ok(policyRulesSchema, rules(51))).toBe(false);
    expect(ok(policyRulesSchema, rules(0))).toBe(false);
    expect(ok(createPolicyRequestSchema, { name: 'x'.repeat(200), rules: [rule] })).toBe(true);
    expect(ok(createPolicyRequestSchema, { name: 'x'.repeat(201), rules: [rule] })).toBe(false);
    expect(ok(createPolicyRequestSchema, { name: '  ', rules: [rule] })).toBe(false);
    expect(ok(createPolicyRequestSchema, { name: 'x', rules: [rule], extra: 1 })).toBe(false);
    expect(ok(updatePolicyRequestSchema, { name: 'x', wallet_id: 'w' })).toBe(false);
  });
});
