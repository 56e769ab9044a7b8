import { MaxUint256 } from 'ethers';
import { describe, expect, it } from 'vitest';
import { erc20CallFacts } from '../src/chains/evm-token-calls.js';
import { PERMIT2_ADDRESS, typedDataTokenFacts } from '../src/chains/evm-token-permits.js';
import {
  ATTACKER,
  ERC20,
  PAYEE,
  PERMIT_TYPES,
  PERMIT2,
  payload,
  permit,
  permit2Domain,
  permitBatch,
  permitBatchTransfer,
  permitSingle,
  permitTransfer,
  TOKEN_PERMISSIONS,
  USDC,
  usdcDomain,
  WETH,
} from './token-fixtures.js';

const low = (a: string) => a.toLowerCase();

describe('ERC-20 calldata', () => {
  it('reads transfer, transferFrom, approve and increaseAllowance as ethers encodes them', () => {
    const amount = 10n ** 24n;
    expect(erc20CallFacts(USDC, ERC20.encodeFunctionData('transfer', [ATTACKER, amount]))).toEqual({
      actions: [{ kind: 'transfer', token: low(USDC), counterparty: low(ATTACKER), amount }],
    });
    expect(
      erc20CallFacts(USDC, ERC20.encodeFunctionData('transferFrom', [PAYEE, ATTACKER, amount]))?.actions,
    ).toEqual([{ kind: 'transfer_from', token: low(USDC), counterparty: low(ATTACKER), amount }]);
    for (const method of ['approve', 'increaseAllowance'] as const) {
      expect(erc20CallFacts(USDC, ERC20.encodeFunctionData(method, [ATTACKER, MaxUint256]))?.actions).toEqual(
        [
          {
            kind: method === 'approve' ? 'approve' : 'increase_allowance',
            token: low(USDC),
            counterparty: low(ATTACKER),
            amount: MaxUint256,
            unlimitedFrom: 2n ** 255n,
          },
        ],
      );
    }
  });

  it('no calldata is no token call; another method is "other", tied to the contract', () => {
    expect(erc20CallFacts(USDC, '0x')).toBeUndefined();
    expect(erc20CallFacts(undefined, ERC20.encodeFunctionData('transfer', [PAYEE, 1n]))).toBeUndefined();
    const other = erc20CallFacts(USDC, ERC20.encodeFunctionData('decreaseAllowance', [PAYEE, 1n]));
    expect(other).toMatchObject({ actions: [], unreadable: { kind: 'other', token: low(USDC) } });
    // Shorter than a selector: still a call, and not one read here.
    expect(erc20CallFacts(USDC, '0xa9')?.unreadable?.kind).toBe('other');
  });

  it('refuses to guess: a byte more or less, or a dirty address word, is malformed', () => {
    const good = ERC20.encodeFunctionData('transfer', [PAYEE, 5n]);
    const dirty = `${good.slice(0, 10)}${'ff'.repeat(12)}${good.slice(34)}`;
    for (const data of [`${good}00`, good.slice(0, -2), dirty, `${good.slice(0, 10)}`]) {
      expect(erc20CallFacts(USDC, data), data).toMatchObject({
        actions: [],
        unreadable: { kind: 'malformed', token: low(USDC) },
      });
    }
    // Direct callers may pass any string: only hex digits are read.
    const notHexAmount = `${good.slice(0, 74)}${'zz'.repeat(32)}`;
    expect(erc20CallFacts(USDC, notHexAmount)?.unreadable?.kind).toBe('malformed');
    // transferFrom: both address words are checked, not only the recipient.
    const from = ERC20.encodeFunctionData('transferFrom', [PAYEE, PAYEE, 5n]);
    const dirtyFrom = `${from.slice(0, 10)}01${from.slice(12)}`;
    expect(erc20CallFacts(USDC, dirtyFrom)?.unreadable?.kind).toBe('malformed');
  });
});

describe('EIP-712 permits', () => {
  it('EIP-2612 Permit: the token is the domain contract, the spender and value the message', () => {
    expect(typedDataTokenFacts(permit(ATTACKER, 2n ** 255n))).toEqual({
      actions: [
        {
          kind: 'permit',
          token: low(USDC),
          counterparty: low(ATTACKER),
          amount: 2n ** 255n,
          unlimitedFrom: 2n ** 255n,
        },
      ],
    });
  });

  it("DAI's permit: allowed=true is the maximum, false a revocation", () => {
    const types = {
      Permit: [
        { name: 'holder', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'expiry', type: 'uint256' },
        { name: 'allowed', type: 'bool' },
      ],
    };
    const dai = { ...usdcDomain, verifyingContract: WETH };
    const of = (allowed: boolean) =>
      typedDataTokenFacts(
        payload(dai, types, { holder: PAYEE, spender: ATTACKER, nonce: 0, expiry: 0, allowed }),
      )?.actions[0]?.amount;
    expect(of(true)).toBe(MaxUint256);
    expect(of(false)).toBe(0n);
    // Only a JSON boolean: the signer would encode "false" or 1 otherwise than it reads.
    for (const allowed of ['false', 1, null]) {
      const typed = payload(dai, types, {
        holder: PAYEE,
        spender: ATTACKER,
        nonce: 0,
        expiry: 0,
        allowed: true,
      });
      const facts = typedDataTokenFacts({ ...typed, message: { ...typed.message, allowed } });
      expect(facts?.unreadable?.kind, String(allowed)).toBe('malformed');
    }
  });

  it('Permit2 PermitSingle, PermitBatch, PermitTransferFrom and PermitBatchTransferFrom', () => {
    const max160 = 2n ** 160n - 1n;
    expect(typedDataTokenFacts(permitSingle(USDC, max160, ATTACKER))?.actions).toEqual([
      {
        kind: 'permit2_allowance',
        token: low(USDC),
        counterparty: low(ATTACKER),
        amount: max160,
        unlimitedFrom: 2n ** 159n,
      },
    ]);
    const batch = typedDataTokenFacts(
      permitBatch(
        [
          [USDC, 5n],
          [WETH, 7n],
        ],
        PAYEE,
      ),
    );
    expect(batch?.actions.map((a) => [a.kind, a.token, a.amount, a.counterparty])).toEqual([
      ['permit2_allowance', low(USDC), 5n, low(PAYEE)],
      ['permit2_allowance', low(WETH), 7n, low(PAYEE)],
    ]);
    expect(typedDataTokenFacts(permitTransfer(WETH, 9n, ATTACKER))?.actions).toEqual([
      {
        kind: 'permit2_transfer',
        token: low(WETH),
        counterparty: low(ATTACKER),
        amount: 9n,
        unlimitedFrom: 2n ** 255n,
      },
    ]);
    const batchTransfer = typedDataTokenFacts(
      permitBatchTransfer(
        [
          [USDC, 1n],
          [USDC, 2n],
        ],
        ATTACKER,
      ),
    );
    expect(batchTransfer?.actions.map((a) => a.amount)).toEqual([1n, 2n]);
    expect(PERMIT2_ADDRESS).toBe(low(PERMIT2));
  });

  it('a witness transfer and EIP-3009 TransferWithAuthorization', () => {
    const witness = payload(
      permit2Domain,
      {
        PermitWitnessTransferFrom: [
          { name: 'permitted', type: 'TokenPermissions' },
          { name: 'spender', type: 'address' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
          { name: 'witness', type: 'Order' },
        ],
        TokenPermissions: TOKEN_PERMISSIONS,
        Order: [{ name: 'minOut', type: 'uint256' }],
      },
      {
        permitted: { token: USDC, amount: 3n },
        spender: PAYEE,
        nonce: 1,
        deadline: 1,
        witness: { minOut: 1 },
      },
    );
    expect(typedDataTokenFacts(witness)?.actions).toMatchObject([{ kind: 'permit2_transfer', amount: 3n }]);
    const auth = payload(
      usdcDomain,
      {
        TransferWithAuthorization: [
          { name: 'from', type: 'address' },
          { name: 'to', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'validAfter', type: 'uint256' },
          { name: 'validBefore', type: 'uint256' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      {
        from: PAYEE,
        to: ATTACKER,
        value: 10n ** 24n,
        validAfter: 0,
        validBefore: 1,
        nonce: `0x${'00'.repeat(32)}`,
      },
    );
    expect(typedDataTokenFacts(auth)?.actions).toEqual([
      {
        kind: 'transfer_with_authorization',
        token: low(USDC),
        counterparty: low(ATTACKER),
        amount: 10n ** 24n,
      },
    ]);
  });

  it('a permit type that is not the standard one, or values the signer could read otherwise, are malformed', () => {
    const p = permit(ATTACKER, 1n);
    const cases: [string, typeof p][] = [
      ['reordered fields', { ...p, types: { Permit: [...PERMIT_TYPES.Permit!].reverse() } }],
      [
        'a field more',
        {
          ...p,
          types: { Permit: [...PERMIT_TYPES.Permit!, { name: 'salt', type: 'uint256' }] },
          message: { ...p.message, salt: 1 },
        },
      ],
      ['value as " 1"', { ...p, message: { ...p.message, value: ' 1' } }],
      ['value as ""', { ...p, message: { ...p.message, value: '' } }],
      ['value as 0b1', { ...p, message: { ...p.message, value: '0b1' } }],
      ['value above uint256', { ...p, message: { ...p.message, value: (2n ** 256n).toString() } }],
      ['value missing', { ...p, message: { owner: PAYEE, spender: ATTACKER, nonce: 0, deadline: 0 } }],
      ['spender not an address', { ...p, message: { ...p.message, spender: '0x12' } }],
    ];
    for (const [name, typed] of cases) {
      expect(typedDataTokenFacts(typed), name).toMatchObject({
        actions: [],
        unreadable: { kind: 'malformed', token: low(USDC) },
      });
    }
    // A permit without a token contract: which token is unknown.
    const noContract = { ...p, domain: { name: 'x', chainId: 1 } };
    expect(typedDataTokenFacts(noContract)?.unreadable).toMatchObject({ kind: 'malformed' });
    expect(typedDataTokenFacts(noContract)?.unreadable?.token).toBeUndefined();
    // Permit2 amounts are uint160: one more is not a Permit2 allowance, and the token is any.
    const single = permitSingle(USDC, 1n, PAYEE);
    const tooBig = {
      ...single,
      message: {
        ...single.message,
        details: { ...(single.message.details as object), amount: (2n ** 160n).toString() },
      },
    };
    expect(typedDataTokenFacts(tooBig)?.unreadable).toEqual({
      kind: 'malformed',
      reason: expect.stringContaining('amount'),
    });
  });

  it('other typed data: bound to a contract it is "other"; unbound it is not a token matter', () => {
    const mail = payload(
      { name: 'Mail', chainId: 1, verifyingContract: USDC },
      { Mail: [{ name: 'body', type: 'string' }] },
      {
        body: 'hi',
      },
    );
    expect(typedDataTokenFacts(mail)).toMatchObject({
      actions: [],
      unreadable: { kind: 'other', token: low(USDC) },
    });
    expect(typedDataTokenFacts({ ...mail, domain: { name: 'Mail' } })).toBeUndefined();
    // Anything else for Permit2 is malformed: Permit2 verifies only its own types.
    expect(typedDataTokenFacts({ ...mail, domain: permit2Domain })?.unreadable?.kind).toBe('malformed');
  });
});
