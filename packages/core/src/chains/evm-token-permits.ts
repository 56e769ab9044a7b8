/**
 * What EIP-712 typed data lets happen to ERC-20 tokens: EIP-2612 (and DAI's) `Permit`, Uniswap
 * Permit2's allowances and signature transfers, and EIP-3009 transfers by authorisation. Pure.
 * A struct is read only when its type is exactly the standard one (same fields, same order, so
 * the same type hash the contract checks) and every value is one the signing library encodes to
 * the same number or address; anything else that names one of these types is unreadable.
 */
import {
  type TokenAction,
  type TokenFacts,
  UINT160_UNLIMITED,
  UINT256_UNLIMITED,
} from './evm-token-calls.js';

/** Uniswap's Permit2, deployed at this address on every chain it is on. */
export const PERMIT2_ADDRESS = '0x000000000022d473030f116ddee9f6b43ac78ba3';

type Types = Record<string, { name: string; type: string }[]>;
type Typed = {
  domain: Record<string, unknown>;
  types: Types;
  primaryType: string;
  message: Record<string, unknown>;
};
type Fields = readonly (readonly [name: string, type: string])[];

const PERMIT_EIP2612: Fields = [
  ['owner', 'address'],
  ['spender', 'address'],
  ['value', 'uint256'],
  ['nonce', 'uint256'],
  ['deadline', 'uint256'],
];
const PERMIT_DAI: Fields = [
  ['holder', 'address'],
  ['spender', 'address'],
  ['nonce', 'uint256'],
  ['expiry', 'uint256'],
  ['allowed', 'bool'],
];
const PERMIT_DETAILS: Fields = [
  ['token', 'address'],
  ['amount', 'uint160'],
  ['expiration', 'uint48'],
  ['nonce', 'uint48'],
];
const TOKEN_PERMISSIONS: Fields = [
  ['token', 'address'],
  ['amount', 'uint256'],
];
const AUTHORIZATION: Fields = [
  ['from', 'address'],
  ['to', 'address'],
  ['value', 'uint256'],
  ['validAfter', 'uint256'],
  ['validBefore', 'uint256'],
  ['nonce', 'bytes32'],
];

const PERMIT2_TYPES = new Set([
  'PermitSingle',
  'PermitBatch',
  'PermitTransferFrom',
  'PermitBatchTransferFrom',
  'PermitWitnessTransferFrom',
  'PermitBatchWitnessTransferFrom',
]);
const TOKEN_CONTRACT_TYPES = new Set(['Permit', 'TransferWithAuthorization', 'ReceiveWithAuthorization']);

/** Errors thrown by `fail`: a struct that is not read, as opposed to a bug. */
const unreadableErrors = new WeakSet<Error>();
const fail = (why: string): never => {
  const err = new Error(why);
  unreadableErrors.add(err);
  throw err;
};

/** `types[name]` is exactly `fields` (with `extra` more fields after them, of any kind). */
function hasFields(types: Types, name: string, fields: Fields, extra = 0): boolean {
  const own = Object.hasOwn(types, name) ? types[name] : undefined;
  if (!own || own.length !== fields.length + extra) return false;
  return fields.every(([n, t], i) => own[i]!.name === n && own[i]!.type === t);
}

function objectAt(holder: unknown, key: string): Record<string, unknown> {
  const value = own(holder, key);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(`${key} is not an object`);
  return value as Record<string, unknown>;
}

function own(holder: unknown, key: string): unknown {
  if (typeof holder !== 'object' || holder === null || !Object.hasOwn(holder, key)) fail(`${key} is missing`);
  return (holder as Record<string, unknown>)[key];
}

function addressAt(holder: unknown, key: string): string {
  const value = own(holder, key);
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value)) fail(`${key} is not an address`);
  return (value as string).toLowerCase();
}

/**
 * An unsigned integer of `bits` bits, in the forms the signing library reads as that same number:
 * a safe integer, a decimal string without leading zeros, or `0x` hex. Anything else (a string
 * `BigInt` would also read, such as "", " 7" or "0b1") is refused rather than guessed at.
 */
function uintAt(holder: unknown, key: string, bits: number): bigint {
  const value = own(holder, key);
  let n: bigint | undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) n = BigInt(value);
  else if (typeof value === 'string' && /^(0|[1-9][0-9]{0,79}|0x[0-9a-fA-F]{1,64})$/.test(value))
    n = BigInt(value);
  if (n === undefined || n >= 1n << BigInt(bits)) fail(`${key} is not a uint${bits}`);
  return n as bigint;
}

function arrayAt(holder: unknown, key: string): unknown[] {
  const value = own(holder, key);
  if (!Array.isArray(value)) fail(`${key} is not an array`);
  return value as unknown[];
}

function verifyingContract(typed: Typed): string | undefined {
  const v = typed.domain.verifyingContract;
  return typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v) ? v.toLowerCase() : undefined;
}

function tokenContractActions(typed: Typed, token: string | undefined): TokenAction[] {
  const { types, primaryType: p, message: m } = typed;
  if (token === undefined) return fail('the domain has no verifyingContract (the token)');
  if (p === 'Permit' && hasFields(types, p, PERMIT_EIP2612)) {
    const amount = uintAt(m, 'value', 256);
    return [
      {
        kind: 'permit',
        token,
        counterparty: addressAt(m, 'spender'),
        amount,
        unlimitedFrom: UINT256_UNLIMITED,
      },
    ];
  }
  if (p === 'Permit' && hasFields(types, p, PERMIT_DAI)) {
    // DAI's permit has no amount: `allowed` grants the maximum or revokes.
    const allowed = own(m, 'allowed');
    if (typeof allowed !== 'boolean') fail('allowed is not a boolean');
    const amount = allowed ? (1n << 256n) - 1n : 0n;
    return [
      {
        kind: 'permit',
        token,
        counterparty: addressAt(m, 'spender'),
        amount,
        unlimitedFrom: UINT256_UNLIMITED,
      },
    ];
  }
  if (p !== 'Permit' && hasFields(types, p, AUTHORIZATION)) {
    return [
      {
        kind: 'transfer_with_authorization',
        token,
        counterparty: addressAt(m, 'to'),
        amount: uintAt(m, 'value', 256),
      },
    ];
  }
  return fail(`${p} is not the standard type`);
}

function permit2Actions(typed: Typed): TokenAction[] {
  const { types, primaryType: p, message: m } = typed;
  const single = p === 'PermitSingle' || p === 'PermitTransferFrom' || p === 'PermitWitnessTransferFrom';
  const witness = p.includes('Witness') ? 1 : 0;
  if (p === 'PermitSingle' || p === 'PermitBatch') {
    const detailsType = single ? 'PermitDetails' : 'PermitDetails[]';
    const shape: Fields = [
      ['details', detailsType],
      ['spender', 'address'],
      ['sigDeadline', 'uint256'],
    ];
    if (!hasFields(types, p, shape) || !hasFields(types, 'PermitDetails', PERMIT_DETAILS))
      fail(`${p} is not Permit2's type`);
    const spender = addressAt(m, 'spender');
    const details = single ? [objectAt(m, 'details')] : arrayAt(m, 'details');
    return details.map((d) => ({
      kind: 'permit2_allowance' as const,
      token: addressAt(d, 'token'),
      counterparty: spender,
      amount: uintAt(d, 'amount', 160),
      unlimitedFrom: UINT160_UNLIMITED,
    }));
  }
  const permittedType = single ? 'TokenPermissions' : 'TokenPermissions[]';
  const shape: Fields = [
    ['permitted', permittedType],
    ['spender', 'address'],
    ['nonce', 'uint256'],
    ['deadline', 'uint256'],
  ];
  if (!hasFields(types, p, shape, witness) || !hasFields(types, 'TokenPermissions', TOKEN_PERMISSIONS))
    fail(`${p} is not Permit2's type`);
  const spender = addressAt(m, 'spender');
  const permitted = single ? [objectAt(m, 'permitted')] : arrayAt(m, 'permitted');
  return permitted.map((d) => ({
    kind: 'permit2_transfer' as const,
    token: addressAt(d, 'token'),
    counterparty: spender,
    amount: uintAt(d, 'amount', 256),
    unlimitedFrom: UINT256_UNLIMITED,
  }));
}

/**
 * The token actions of typed data; undefined when it neither names a token type nor is bound to a
 * contract. Permit2's types are read by their shape whatever the domain's contract, so a copy of
 * Permit2 at another address is judged the same.
 */
export function typedDataTokenFacts(typed: Typed): TokenFacts | undefined {
  const contract = verifyingContract(typed);
  const p = typed.primaryType;
  const isPermit2 = PERMIT2_TYPES.has(p) || contract === PERMIT2_ADDRESS;
  if (!isPermit2 && !TOKEN_CONTRACT_TYPES.has(p)) {
    if (contract === undefined) return undefined;
    return {
      actions: [],
      unreadable: {
        kind: 'other',
        token: contract,
        reason: `Typed data ${p} for ${contract} is not a permit read here.`,
      },
    };
  }
  try {
    return { actions: isPermit2 ? permit2Actions(typed) : tokenContractActions(typed, contract) };
  } catch (err) {
    if (!(err instanceof Error) || !unreadableErrors.has(err)) throw err;
    return {
      actions: [],
      unreadable: {
        kind: 'malformed',
        // A Permit2 struct that cannot be read could concern any token.
        ...(isPermit2 || contract === undefined ? {} : { token: contract }),
        reason: `The ${p} typed data cannot be decoded: ${err.message}.`,
      },
    };
  }
}
