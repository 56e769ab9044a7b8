import { Interface } from 'ethers';
import { describe, expect, it } from 'vitest';
import { erc20CallFacts } from '../src/chains/evm-token-calls.js';
import {
  evaluatePolicies,
  type PolicyRule,
  policyRuleSchema,
  type SigningRequest,
  type WalletPolicyRecord,
  type WalletRecord,
} from '../src/index.js';

const wallet = (wallet_type: WalletRecord['wallet_type'], public_address: string): WalletRecord => ({
  id: 'wallet_1',
  app_id: 'app_1',
  user_id: 'user_1',
  wallet_type,
  network: 'mainnet',
  public_address,
  key_source: 'seed',
  derivation_path: null,
  key_id: null,
  sealed_private_key: null,
  is_default: true,
  is_imported: false,
  is_read_only: false,
  verified: true,
  created_at: 0,
  updated_at: 0,
});

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const OWN_BTC = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const PAYEE_BTC = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

const evm = (
  over: Partial<NonNullable<SigningRequest['evm']>> = {},
  method: SigningRequest['method'] = 'sign_transaction',
): SigningRequest => ({
  app_id: 'app_1',
  wallet: wallet('ethereum', '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'),
  chain: 'ethereum',
  method,
  payload_digest: '00'.repeat(32),
  key_kind: 'secret',
  evm: { chain_id: 1n, to: USDC, value: 0n, selector: '0xa9059cbb', ...over },
});
const sol = (programs: string[], lamports: bigint): SigningRequest => ({
  ...evm(),
  wallet: wallet('solana', '11111111111111111111111111111112'),
  chain: 'solana',
  evm: undefined,
  solana: { programs, lamports },
});
const btc = (outputs: { address?: string; value: bigint }[]): SigningRequest => ({
  ...evm(),
  wallet: wallet('bitcoin', OWN_BTC),
  chain: 'bitcoin',
  evm: undefined,
  bitcoin: { outputs },
});
const message = (chain: SigningRequest['chain']): SigningRequest => ({
  ...evm(),
  chain,
  method: 'sign_message',
  evm: undefined,
});

/** One policy of one rule, parsed by the same schema the API uses. */
const policyOf = (rule: unknown, id = 'policy_a'): WalletPolicyRecord => ({
  id,
  app_id: 'app_1',
  name: 'p',
  wallet_id: null,
  rules: [policyRuleSchema.parse(rule) as PolicyRule],
  created_at: 0,
  updated_at: 0,
});
const judge = (rule: unknown, request: SigningRequest) => evaluatePolicies(request, [policyOf(rule)]);
const refusedBy = (rule: unknown, request: SigningRequest) => {
  const v = judge(rule, request);
  return v.allowed ? undefined : v.refusal.rule_kind;
};
const allowed = (rule: unknown, request: SigningRequest) => judge(rule, request).allowed;

describe('evaluatePolicies, one rule kind at a time', () => {
  it('allowed_methods and allowed_chains judge every request', () => {
    const methods = { kind: 'allowed_methods', methods: ['sign_message', 'sign_typed_data'] };
    expect(allowed(methods, message('ethereum'))).toBe(true);
    expect(refusedBy(methods, evm())).toBe('allowed_methods');
    const chains = { kind: 'allowed_chains', chains: ['ethereum', 'XLM'] };
    expect(allowed(chains, evm())).toBe(true);
    expect(allowed(chains, message('XLM'))).toBe(true);
    expect(refusedBy(chains, sol([], 0n))).toBe('allowed_chains');
    expect(refusedBy(chains, message('DOT'))).toBe('allowed_chains');
  });

  it('evm_chain_allowlist', () => {
    const rule = { kind: 'evm_chain_allowlist', chain_ids: ['1', '8453'] };
    expect(allowed(rule, evm({ chain_id: 8453n }))).toBe(true);
    expect(refusedBy(rule, evm({ chain_id: 137n }))).toBe('evm_chain_allowlist');
    expect(allowed(rule, sol([], 5n))).toBe(true);
  });

  it('evm_to_allowlist compares addresses in any case and refuses contract creation', () => {
    const rule = { kind: 'evm_to_allowlist', addresses: [USDC] };
    expect(allowed(rule, evm({ to: USDC.toLowerCase() }))).toBe(true);
    expect(refusedBy(rule, evm({ to: `0x${'11'.repeat(20)}` }))).toBe('evm_to_allowlist');
    expect(refusedBy(rule, evm({ to: undefined }))).toBe('evm_to_allowlist');
    // A message carries no recipient: the rule does not apply to it.
    expect(allowed(rule, message('ethereum'))).toBe(true);
  });

  it('evm_selector_allowlist judges calldata, not plain transfers', () => {
    const rule = { kind: 'evm_selector_allowlist', selectors: ['0xA9059CBB'] };
    expect(allowed(rule, evm({ selector: '0xa9059cbb' }))).toBe(true);
    expect(refusedBy(rule, evm({ selector: '0x095ea7b3' }))).toBe('evm_selector_allowlist');
    expect(allowed(rule, evm({ selector: undefined, value: 5n }))).toBe(true);
  });

  it('evm_max_value, on every chain or on one', () => {
    const rule = { kind: 'evm_max_value', max_wei: '1000000000000000000' };
    expect(allowed(rule, evm({ value: 10n ** 18n }))).toBe(true);
    expect(refusedBy(rule, evm({ value: 10n ** 18n + 1n }))).toBe('evm_max_value');
    const onBase = { kind: 'evm_max_value', max_wei: '1', chain_id: '8453' };
    expect(allowed(onBase, evm({ value: 5n }))).toBe(true);
    expect(refusedBy(onBase, evm({ value: 5n, chain_id: 8453n }))).toBe('evm_max_value');
  });

  it('evm_daily_value returns the cap to reserve, per chain; more than the cap is refused at once', () => {
    const rule = { kind: 'evm_daily_value', max_wei: '1000' };
    const cap = {
      asset: 'evm:137',
      amount: 10n,
      limit: 1000n,
      rule: { policy_id: 'policy_a', rule_index: 0, rule_kind: 'evm_daily_value' },
    };
    expect(judge(rule, evm({ value: 10n, chain_id: 137n }))).toEqual({ allowed: true, caps: [cap], cap });
    expect(judge(rule, evm({ value: 0n }))).toEqual({ allowed: true, caps: [], cap: null });
    expect(refusedBy(rule, evm({ value: 1001n }))).toBe('evm_daily_value');
    expect(judge({ ...rule, chain_id: '1' }, evm({ value: 5n, chain_id: 10n }))).toEqual({
      allowed: true,
      caps: [],
      cap: null,
    });
  });

  it('solana_program_allowlist, solana_max_lamports and solana_daily_lamports', () => {
    const system = '11111111111111111111111111111111';
    const memo = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
    const programs = { kind: 'solana_program_allowlist', programs: [system] };
    expect(allowed(programs, sol([system], 1n))).toBe(true);
    expect(refusedBy(programs, sol([system, memo], 1n))).toBe('solana_program_allowlist');
    const max = { kind: 'solana_max_lamports', max_lamports: '100' };
    expect(allowed(max, sol([system], 100n))).toBe(true);
    expect(refusedBy(max, sol([system], 101n))).toBe('solana_max_lamports');
    const daily = { kind: 'solana_daily_lamports', max_lamports: '100' };
    const v = judge(daily, sol([system], 40n));
    expect(v.allowed && v.cap).toMatchObject({ asset: 'solana:lamports', amount: 40n, limit: 100n });
    expect(refusedBy(daily, sol([system], 101n))).toBe('solana_daily_lamports');
    // EVM and bitcoin rules do not touch a Solana request.
    expect(allowed({ kind: 'evm_max_value', max_wei: '0' }, sol([system], 5n))).toBe(true);
    expect(allowed({ kind: 'bitcoin_max_output_value', max_sats: '0' }, sol([system], 5n))).toBe(true);
  });

  it("bitcoin_max_output_value sums what is paid to others, not the wallet's change", () => {
    const rule = { kind: 'bitcoin_max_output_value', max_sats: '50000' };
    const change = { address: OWN_BTC.toUpperCase(), value: 900_000n };
    expect(allowed(rule, btc([{ address: PAYEE_BTC, value: 50_000n }, change]))).toBe(true);
    expect(
      refusedBy(
        rule,
        btc([
          { address: PAYEE_BTC, value: 30_000n },
          { address: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT', value: 20_001n },
        ]),
      ),
    ).toBe('bitcoin_max_output_value');
  });

  it('bitcoin_address_allowlist: every paying output to a listed address; data outputs of 0 pass', () => {
    const rule = { kind: 'bitcoin_address_allowlist', addresses: [PAYEE_BTC.toUpperCase()] };
    expect(
      allowed(rule, btc([{ address: PAYEE_BTC, value: 1n }, { address: OWN_BTC, value: 5n }, { value: 0n }])),
    ).toBe(true);
    expect(refusedBy(rule, btc([{ address: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT', value: 1n }]))).toBe(
      'bitcoin_address_allowlist',
    );
    expect(refusedBy(rule, btc([{ value: 1n }]))).toBe('bitcoin_address_allowlist');
  });
});

describe('evaluatePolicies across policies', () => {
  it('names the first refusing rule by policy and index, and the lowest daily cap', () => {
    const a = policyOf({ kind: 'evm_daily_value', max_wei: '500' }, 'policy_a');
    const b: WalletPolicyRecord = {
      ...policyOf({ kind: 'evm_daily_value', max_wei: '300' }, 'policy_b'),
      rules: [
        { kind: 'allowed_chains', chains: ['ethereum'] },
        { kind: 'evm_daily_value', max_wei: '300' },
        { kind: 'evm_to_allowlist', addresses: [USDC] },
      ],
    };
    const v = evaluatePolicies(evm({ value: 10n }), [a, b]);
    expect(v.allowed && v.cap?.rule).toEqual({
      policy_id: 'policy_b',
      rule_index: 1,
      rule_kind: 'evm_daily_value',
    });
    const refused = evaluatePolicies(evm({ to: `0x${'22'.repeat(20)}` }), [a, b]);
    expect(refused.allowed ? undefined : refused.refusal).toMatchObject({
      policy_id: 'policy_b',
      rule_index: 2,
      rule_kind: 'evm_to_allowlist',
    });
    expect(evaluatePolicies(evm(), [])).toEqual({ allowed: true, caps: [], cap: null });
  });
});

describe('evaluatePolicies with token rules', () => {
  const erc20 = new Interface(['function transfer(address to, uint256 amount)']);
  const PAYEE = '0x1111111111111111111111111111111111111111';
  /** A USDC transfer with native value, its token facts read from calldata ethers encoded. */
  const usdcTransfer = (amount: bigint, value: bigint) => {
    const data = erc20.encodeFunctionData('transfer', [PAYEE, amount]);
    return evm({ value, tokens: erc20CallFacts(USDC, data) });
  };

  it('returns one cap per asset, native value and token, whichever limit is lower', () => {
    for (const [wei, units] of [
      ['100', '1000'],
      ['1000', '100'],
    ]) {
      const policy: WalletPolicyRecord = {
        ...policyOf({ kind: 'evm_daily_value', max_wei: wei! }),
        rules: [
          policyRuleSchema.parse({ kind: 'evm_daily_value', max_wei: wei }),
          policyRuleSchema.parse({
            kind: 'evm_token_daily_amount',
            chain_id: '1',
            token: USDC,
            max_amount: units,
          }),
        ],
      };
      const v = evaluatePolicies(usdcTransfer(7n, 5n), [policy]);
      expect(v.allowed && v.caps.map((c) => [c.asset, c.amount, c.limit])).toEqual([
        ['evm:1', 5n, BigInt(wei!)],
        [`erc20:1:${USDC.toLowerCase()}`, 7n, BigInt(units!)],
      ]);
    }
  });

  it('a policy without token rules judges a token transfer exactly as before (value and recipient only)', () => {
    const oldTreasury = [
      { kind: 'evm_to_allowlist', addresses: [USDC] },
      { kind: 'evm_selector_allowlist', selectors: ['0xa9059cbb'] },
      { kind: 'evm_daily_value', max_wei: '0', chain_id: '1' },
    ];
    const policy = { ...policyOf(oldTreasury[0]), rules: oldTreasury.map((r) => policyRuleSchema.parse(r)) };
    expect(evaluatePolicies(usdcTransfer(10n ** 24n, 0n), [policy])).toEqual({
      allowed: true,
      caps: [],
      cap: null,
    });
  });
});
