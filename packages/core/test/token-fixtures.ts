import { Interface, TypedDataEncoder, type TypedDataField } from 'ethers';

/** Calldata and typed data come from ethers, an encoder independent of the decoders under test. */
export const ERC20 = new Interface([
  'function transfer(address to, uint256 amount)',
  'function transferFrom(address from, address to, uint256 amount)',
  'function approve(address spender, uint256 amount)',
  'function increaseAllowance(address spender, uint256 added)',
  'function decreaseAllowance(address spender, uint256 removed)',
]);

export const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
export const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
export const PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
export const ATTACKER = '0x000000000000000000000000000000000000dEaD';
export const PAYEE = '0x1111111111111111111111111111111111111111';

type Types = Record<string, TypedDataField[]>;
/** The eth_signTypedData_v4 payload ethers builds (primaryType found, values normalised). */
export const payload = (domain: Record<string, unknown>, types: Types, message: Record<string, unknown>) =>
  TypedDataEncoder.getPayload(domain, types, message) as {
    domain: Record<string, unknown>;
    types: Types;
    primaryType: string;
    message: Record<string, unknown>;
  };

export const PERMIT_TYPES: Types = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
};
export const usdcDomain = { name: 'USD Coin', version: '2', chainId: 1, verifyingContract: USDC };
export const permit = (spender: string, value: bigint, owner = PAYEE) =>
  payload(usdcDomain, PERMIT_TYPES, { owner, spender, value, nonce: 0, deadline: 2n ** 40n });

export const DETAILS: TypedDataField[] = [
  { name: 'token', type: 'address' },
  { name: 'amount', type: 'uint160' },
  { name: 'expiration', type: 'uint48' },
  { name: 'nonce', type: 'uint48' },
];
export const TOKEN_PERMISSIONS: TypedDataField[] = [
  { name: 'token', type: 'address' },
  { name: 'amount', type: 'uint256' },
];
export const permit2Domain = { name: 'Permit2', chainId: 1, verifyingContract: PERMIT2 };
export const permitSingle = (token: string, amount: bigint, spender: string) =>
  payload(
    permit2Domain,
    {
      PermitSingle: [
        { name: 'details', type: 'PermitDetails' },
        { name: 'spender', type: 'address' },
        { name: 'sigDeadline', type: 'uint256' },
      ],
      PermitDetails: DETAILS,
    },
    { details: { token, amount, expiration: 2n ** 40n, nonce: 0 }, spender, sigDeadline: 2n ** 40n },
  );
export const permitBatch = (details: [string, bigint][], spender: string) =>
  payload(
    permit2Domain,
    {
      PermitBatch: [
        { name: 'details', type: 'PermitDetails[]' },
        { name: 'spender', type: 'address' },
        { name: 'sigDeadline', type: 'uint256' },
      ],
      PermitDetails: DETAILS,
    },
    {
      details: details.map(([token, amount], nonce) => ({ token, amount, expiration: 2n ** 40n, nonce })),
      spender,
      sigDeadline: 2n ** 40n,
    },
  );
export const permitTransfer = (token: string, amount: bigint, spender: string) =>
  payload(
    permit2Domain,
    {
      PermitTransferFrom: [
        { name: 'permitted', type: 'TokenPermissions' },
        { name: 'spender', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
      TokenPermissions: TOKEN_PERMISSIONS,
    },
    { permitted: { token, amount }, spender, nonce: 7, deadline: 2n ** 40n },
  );
export const permitBatchTransfer = (permitted: [string, bigint][], spender: string) =>
  payload(
    permit2Domain,
    {
      PermitBatchTransferFrom: [
        { name: 'permitted', type: 'TokenPermissions[]' },
        { name: 'spender', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
      TokenPermissions: TOKEN_PERMISSIONS,
    },
    {
      permitted: permitted.map(([token, amount]) => ({ token, amount })),
      spender,
      nonce: 7,
      deadline: 2n ** 40n,
    },
  );
