import { Transaction as EthTransaction, MaxUint256, verifyTypedData } from 'ethers';
import { describe, expect, it } from 'vitest';
import { expectErrorShape, testApp, testLatchkey } from './helpers.js';
import {
  ATTACKER,
  ERC20,
  PAYEE,
  PERMIT2,
  payload,
  permit,
  permit2Domain,
  permitBatch,
  permitBatchTransfer,
  permitSingle,
  permitTransfer,
  USDC,
  WETH,
} from './token-fixtures.js';

const EXCHANGE = '0x2222222222222222222222222222222222222222';
const ROUTER = '0x3333333333333333333333333333333333333333';
const OTHER_CONTRACT = '0x4444444444444444444444444444444444444444';
const USDC_UNIT = 10n ** 6n;

/**
 * The Treasury policy of docs/wallet-policies.md: USDC only, to two recipients, approvals only to
 * one router and never unlimited, at most 10,000 USDC per signature and 50,000 per day.
 */
const TREASURY_RULES = [
  { kind: 'allowed_methods', methods: ['sign_transaction', 'sign_typed_data'] },
  { kind: 'evm_chain_allowlist', chain_ids: ['1'] },
  { kind: 'evm_to_allowlist', addresses: [USDC, PERMIT2] },
  { kind: 'evm_selector_allowlist', selectors: ['0xa9059cbb', '0x095ea7b3'] },
  { kind: 'evm_daily_value', max_wei: '0', chain_id: '1' },
  { kind: 'evm_token_max_amount', chain_id: '1', token: USDC, max_amount: '10000000000' },
  { kind: 'evm_token_daily_amount', chain_id: '1', token: USDC, max_amount: '50000000000' },
  { kind: 'evm_token_recipient_allowlist', addresses: [PAYEE, EXCHANGE] },
  { kind: 'evm_token_spender_allowlist', addresses: [ROUTER] },
  { kind: 'evm_token_no_unlimited_approval' },
  { kind: 'solana_daily_lamports', max_lamports: '5000000000' },
];

async function setup() {
  const { latchkey, clock } = testLatchkey();
  const t = await testApp(latchkey);
  const user = await t.call('POST', '/v1/auth/users', {
    email: `tok${Math.random().toString(36).slice(2)}@example.com`,
  });
  const wallet = (
    await t.call('POST', '/v1/wallets/create', { user_id: user.body.user_id, wallet_type: 'ethereum' })
  ).body as { id: string; public_address: string };
  let nonce = 0;
  const signTx = (to: string, data: string, { value = '0', chain_id = '1' } = {}) =>
    t.call('POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
      eth_transaction: {
        chain_id,
        to,
        value,
        data,
        nonce: String(nonce++),
        gas_limit: '100000',
        max_fee_per_gas: '30000000000',
      },
    });
  const signTyped = (typed_data: unknown) =>
    t.call('POST', `/v1/wallets/${wallet.id}/sign_typed_data`, { typed_data });
  const policy = async (rules: unknown[]) => {
    clock.advance(0.001);
    const res = await t.call('POST', '/v1/wallets/policies', { name: 'Tokens', wallet_id: wallet.id, rules });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.policy_id as string;
  };
  return { t, clock, wallet, signTx, signTyped, policy };
}

type Res = { status: number; body: any; headers: Headers };

function expectRefused(res: Res, rule_kind: string, rule_index?: number) {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(expectErrorShape(res).error_type).toBe('policy_violation');
  expect(res.body.policy_rule.rule_kind).toBe(rule_kind);
  if (rule_index !== undefined) expect(res.body.policy_rule.rule_index).toBe(rule_index);
}

function expectSignedTx(res: Res, wallet: { public_address: string }, data: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const tx = EthTransaction.from(res.body.signed_transaction);
  expect(tx.from).toBe(wallet.public_address);
  expect(tx.data).toBe(data);
}

function expectSignedTyped(res: Res, wallet: { public_address: string }, typed: ReturnType<typeof payload>) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const { EIP712Domain: _, ...types } = typed.types;
  expect(verifyTypedData(typed.domain, types, typed.message, res.body.signature)).toBe(wallet.public_address);
}

const transfer = (to: string, amount: bigint) => ERC20.encodeFunctionData('transfer', [to, amount]);

describe("the docs' Treasury policy judges what the wallet's tokens do", () => {
  it('refuses USDC.transfer(attacker, 10^24) and Permit(attacker, 2^255); signs an in-limit transfer to a payee', async () => {
    const { wallet, signTx, signTyped, policy } = await setup();
    await policy(TREASURY_RULES);

    expectRefused(await signTx(USDC, transfer(ATTACKER, 10n ** 24n)), 'evm_token_max_amount');
    // Within the amount, the recipient decides.
    expectRefused(await signTx(USDC, transfer(ATTACKER, USDC_UNIT)), 'evm_token_recipient_allowlist');
    expectRefused(await signTyped(permit(ATTACKER, 2n ** 255n)), 'evm_token_max_amount');
    expectRefused(await signTyped(permit(ATTACKER, USDC_UNIT)), 'evm_token_spender_allowlist');
    // An approval the selector list allows, to the listed router, but unlimited.
    expectRefused(
      await signTx(USDC, ERC20.encodeFunctionData('approve', [ROUTER, MaxUint256])),
      'evm_token_max_amount',
    );

    const ok = transfer(PAYEE, 1000n * USDC_UNIT);
    expectSignedTx(await signTx(USDC, ok), wallet, ok);
    const routerPermit = permit(ROUTER, 500n * USDC_UNIT, wallet.public_address);
    expectSignedTyped(await signTyped(routerPermit), wallet, routerPermit);
  });

  it('holds the daily USDC amount across signatures, approvals included', async () => {
    const { signTx, signTyped, policy, clock } = await setup();
    await policy(TREASURY_RULES);
    for (let i = 0; i < 4; i++)
      expect((await signTx(USDC, transfer(EXCHANGE, 10_000n * USDC_UNIT))).status).toBe(200);
    expect((await signTyped(permit(ROUTER, 9_000n * USDC_UNIT))).status).toBe(200);
    expectRefused(await signTx(USDC, transfer(PAYEE, 1_000n * USDC_UNIT + 1n)), 'evm_token_daily_amount', 6);
    expect((await signTx(USDC, transfer(PAYEE, 1_000n * USDC_UNIT))).status).toBe(200);
    expectRefused(await signTx(USDC, transfer(PAYEE, 1n)), 'evm_token_daily_amount', 6);
    // Rolling: a day later the first spends have left the window.
    clock.advance(24 * 60 * 60 + 1);
    expect((await signTx(USDC, transfer(PAYEE, 10_000n * USDC_UNIT))).status).toBe(200);
  });
});

describe('token rules, one kind at a time over HTTP', () => {
  it('Permit2 PermitSingle and PermitBatch: spenders and unlimited allowances', async () => {
    const { wallet, signTx, signTyped, policy } = await setup();
    await policy([
      { kind: 'evm_token_spender_allowlist', addresses: [ROUTER] },
      { kind: 'evm_token_no_unlimited_approval' },
    ]);
    expectRefused(await signTyped(permitSingle(USDC, 5n, ATTACKER)), 'evm_token_spender_allowlist');
    // uint160's maximum is Permit2's "infinite": refused by default even though below 2^255.
    expectRefused(
      await signTyped(permitSingle(USDC, 2n ** 160n - 1n, ROUTER)),
      'evm_token_no_unlimited_approval',
    );
    const single = permitSingle(USDC, 5n, ROUTER);
    expectSignedTyped(await signTyped(single), wallet, single);
    // The same default judges ERC-20 approvals: MaxUint256 and 2^255 are unlimited, 2^255-1 is not.
    const approve = (amount: bigint) => ERC20.encodeFunctionData('approve', [ROUTER, amount]);
    expectRefused(await signTx(USDC, approve(MaxUint256)), 'evm_token_no_unlimited_approval');
    expectRefused(await signTx(USDC, approve(2n ** 255n)), 'evm_token_no_unlimited_approval');
    expectSignedTx(await signTx(USDC, approve(2n ** 255n - 1n)), wallet, approve(2n ** 255n - 1n));

    // One entry of a batch to another spender, or one entry unlimited, refuses the whole batch.
    expectRefused(
      await signTyped(
        permitBatch(
          [
            [USDC, 5n],
            [WETH, 5n],
          ],
          ATTACKER,
        ),
      ),
      'evm_token_spender_allowlist',
    );
    expectRefused(
      await signTyped(
        permitBatch(
          [
            [USDC, 5n],
            [WETH, 2n ** 159n],
          ],
          ROUTER,
        ),
      ),
      'evm_token_no_unlimited_approval',
    );
    const batch = permitBatch(
      [
        [USDC, 5n],
        [WETH, 6n],
      ],
      ROUTER,
    );
    expectSignedTyped(await signTyped(batch), wallet, batch);

    expectRefused(await signTyped(permitTransfer(WETH, 5n, ATTACKER)), 'evm_token_spender_allowlist');
    expectRefused(
      await signTyped(
        permitBatchTransfer(
          [
            [USDC, 1n],
            [WETH, 1n],
          ],
          ATTACKER,
        ),
      ),
      'evm_token_spender_allowlist',
    );
  });

  it('Permit2 batch amounts of one token add up against its cap', async () => {
    const { signTyped, policy } = await setup();
    await policy([{ kind: 'evm_token_max_amount', chain_id: '1', token: USDC, max_amount: '10' }]);
    const at = (a: bigint, b: bigint) =>
      permitBatchTransfer(
        [
          [USDC, a],
          [USDC, b],
          [WETH, 1000n],
        ],
        ROUTER,
      );
    expect((await signTyped(at(4n, 6n))).status).toBe(200);
    expectRefused(await signTyped(at(5n, 6n)), 'evm_token_max_amount');
  });

  it('Permit2 batch amounts of one token add up against its daily cap', async () => {
    const { signTyped, policy } = await setup();
    await policy([{ kind: 'evm_token_daily_amount', chain_id: '1', token: USDC, max_amount: '10' }]);
    const batch = (a: bigint, b: bigint) =>
      permitBatch(
        [
          [USDC, a],
          [USDC, b],
        ],
        ROUTER,
      );
    expectRefused(await signTyped(batch(5n, 6n)), 'evm_token_daily_amount');
    expect((await signTyped(batch(2n, 6n))).status).toBe(200);
    expectRefused(await signTyped(batch(1n, 2n)), 'evm_token_daily_amount');
    expect((await signTyped(batch(1n, 1n))).status).toBe(200);
  });

  it('increaseAllowance and approve: spender list, revocations pass, no unlimited', async () => {
    const { wallet, signTx, policy } = await setup();
    await policy([
      { kind: 'evm_token_spender_allowlist', addresses: [ROUTER], tokens: [USDC] },
      { kind: 'evm_token_no_unlimited_approval', tokens: [USDC], unlimited_at: '1000000' },
    ]);
    const inc = (spender: string, amount: bigint) =>
      ERC20.encodeFunctionData('increaseAllowance', [spender, amount]);
    const approve = (spender: string, amount: bigint) =>
      ERC20.encodeFunctionData('approve', [spender, amount]);
    expectRefused(await signTx(USDC, inc(ATTACKER, 1n)), 'evm_token_spender_allowlist');
    expectRefused(await signTx(USDC, inc(ROUTER, 1_000_000n)), 'evm_token_no_unlimited_approval');
    expectSignedTx(await signTx(USDC, inc(ROUTER, 999_999n)), wallet, inc(ROUTER, 999_999n));
    // Revoking an approval of a spender no longer trusted must stay possible.
    expectSignedTx(await signTx(USDC, approve(ATTACKER, 0n)), wallet, approve(ATTACKER, 0n));
    expectRefused(await signTx(USDC, approve(ATTACKER, 1n)), 'evm_token_spender_allowlist');
    // Another token is outside the rules' `tokens`.
    expect((await signTx(WETH, approve(ATTACKER, MaxUint256))).status).toBe(200);
  });

  it('transferFrom: the recipient is judged, and the amount counts', async () => {
    const { wallet, signTx, policy } = await setup();
    await policy([
      { kind: 'evm_token_recipient_allowlist', addresses: [PAYEE] },
      { kind: 'evm_token_max_amount', chain_id: '1', token: USDC, max_amount: '100' },
    ]);
    const from = (to: string, amount: bigint) =>
      ERC20.encodeFunctionData('transferFrom', [wallet.public_address, to, amount]);
    expectRefused(await signTx(USDC, from(ATTACKER, 1n)), 'evm_token_recipient_allowlist');
    expectRefused(await signTx(USDC, from(PAYEE, 101n)), 'evm_token_max_amount');
    expectSignedTx(await signTx(USDC, from(PAYEE, 100n)), wallet, from(PAYEE, 100n));
  });

  it('fails closed on what it cannot read: malformed calldata, other calls and typed data for a listed token', async () => {
    const { signTx, signTyped, policy } = await setup();
    await policy([{ kind: 'evm_token_max_amount', chain_id: '1', token: USDC, max_amount: '100' }]);
    const good = transfer(PAYEE, 1n);
    expectRefused(await signTx(USDC, `${good}00`), 'evm_token_max_amount');
    expectRefused(
      await signTx(USDC, `${good.slice(0, 10)}${'ff'.repeat(12)}${good.slice(34)}`),
      'evm_token_max_amount',
    );
    expectRefused(
      await signTx(USDC, ERC20.encodeFunctionData('decreaseAllowance', [PAYEE, 1n])),
      'evm_token_max_amount',
    );
    const mail = payload(
      { name: 'USD Coin', chainId: 1, verifyingContract: USDC },
      { Mail: [{ name: 'body', type: 'string' }] },
      { body: 'x' },
    );
    expectRefused(await signTyped(mail), 'evm_token_max_amount');
    // A Permit2 struct that cannot be read could be about USDC: refused.
    const single = permitSingle(USDC, 1n, ROUTER);
    const unread = { ...single, message: { ...single.message, spender: 'not an address' } };
    expectRefused(await signTyped(unread), 'evm_token_max_amount');
    // Calls to other contracts, and USDC on another chain, are not this rule's.
    expect((await signTx(OTHER_CONTRACT, `${good}00`)).status).toBe(200);
    expect((await signTx(USDC, transfer(ATTACKER, 10n ** 24n), { chain_id: '10' })).status).toBe(200);
    expect((await signTx(USDC, good)).status).toBe(200);
  });

  it('a rule for every token refuses malformed token calldata on any contract, and passes other calls', async () => {
    const { signTx, policy } = await setup();
    await policy([{ kind: 'evm_token_recipient_allowlist', addresses: [PAYEE] }]);
    const good = transfer(PAYEE, 1n);
    expectRefused(await signTx(OTHER_CONTRACT, `${good}00`), 'evm_token_recipient_allowlist');
    expectRefused(await signTx(OTHER_CONTRACT, transfer(ATTACKER, 1n)), 'evm_token_recipient_allowlist');
    expect((await signTx(OTHER_CONTRACT, good)).status).toBe(200);
    expect((await signTx(OTHER_CONTRACT, '0xd0e30db0')).status).toBe(200);
  });

  it('typed data without a chainId is judged by token rules of every chain', async () => {
    const { signTyped, policy } = await setup();
    await policy([{ kind: 'evm_token_spender_allowlist', addresses: [ROUTER], chain_id: '1' }]);
    const { chainId: _, ...noChain } = permit2Domain;
    const typed = permitSingle(USDC, 5n, ATTACKER);
    const { EIP712Domain: __, ...types } = typed.types;
    expectRefused(await signTyped({ ...typed, types, domain: noChain }), 'evm_token_spender_allowlist');
    expect((await signTyped({ ...typed, domain: { ...noChain, chainId: 10 } })).status).toBe(200);
  });

  it('a transaction moving native value and a token reserves both, and releases both when one is over', async () => {
    const { signTx, policy } = await setup();
    await policy([
      { kind: 'evm_daily_value', max_wei: '1000', chain_id: '1' },
      { kind: 'evm_token_daily_amount', chain_id: '1', token: USDC, max_amount: '100' },
    ]);
    expect((await signTx(USDC, transfer(PAYEE, 100n), { value: '10' })).status).toBe(200);
    // The native cap has room; the token cap has none: refused, and the native reservation undone.
    expectRefused(await signTx(USDC, transfer(PAYEE, 1n), { value: '990' }), 'evm_token_daily_amount', 1);
    expect((await signTx(PAYEE, '0x', { value: '990' })).status).toBe(200);
    expectRefused(await signTx(PAYEE, '0x', { value: '1' }), 'evm_daily_value', 0);
  });

  it('refuses malformed token rules with a 400 naming the field', async () => {
    const { t } = await setup();
    const bad = [
      { kind: 'evm_token_max_amount', token: USDC, max_amount: '1' },
      { kind: 'evm_token_max_amount', chain_id: '1', token: '0x12', max_amount: '1' },
      { kind: 'evm_token_daily_amount', chain_id: '1', token: USDC, max_amount: '-1' },
      { kind: 'evm_token_recipient_allowlist', addresses: [] },
      { kind: 'evm_token_spender_allowlist', addresses: [ROUTER], tokens: [] },
      { kind: 'evm_token_no_unlimited_approval', unlimited_at: 1 },
      { kind: 'evm_token_no_unlimited_approval', extra: true },
    ];
    for (const rule of bad) {
      const res = await t.call('POST', '/v1/wallets/policies', { name: 'bad', rules: [rule] });
      expect(res.status, JSON.stringify(rule)).toBe(400);
      expect(expectErrorShape(res).error_type).toMatch(/^(invalid_field|missing_field|unknown_field)$/);
    }
  });
});
