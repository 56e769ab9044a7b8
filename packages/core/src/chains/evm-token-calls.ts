/**
 * What a signature lets happen to ERC-20 tokens, read from calldata. Pure: no I/O, no library.
 * Strict on purpose: a policy that judges token amounts must not be shown one amount while the
 * token contract reads another, so anything but the exact ABI encoding is "unreadable", not a
 * best guess.
 */

/** One movement or authorisation of a token the wallet's signature makes. Addresses in lower case. */
export interface TokenAction {
  kind:
    | 'transfer'
    | 'transfer_from'
    | 'approve'
    | 'increase_allowance'
    | 'permit'
    | 'permit2_allowance'
    | 'permit2_transfer'
    | 'transfer_with_authorization';
  /** The token contract. */
  token: string;
  /** Who receives the tokens (transfers) or may move them (approvals, permits). */
  counterparty: string;
  amount: bigint;
  /**
   * Approvals only: the amount from which this approval counts as unlimited by default: 2^255
   * for uint256 amounts, 2^159 for Permit2's uint160 allowances (whose maximum is its "infinite").
   */
  unlimitedFrom?: bigint;
}

/**
 * Grants the counterparty the right to move the wallet's tokens, rather than sending them to it:
 * approvals, permits, and Permit2 signature transfers (whose spender picks the recipient).
 */
export const isGrant = (a: TokenAction) =>
  a.kind === 'approve' ||
  a.kind === 'increase_allowance' ||
  a.kind === 'permit' ||
  a.kind === 'permit2_allowance' ||
  a.kind === 'permit2_transfer';

export interface TokenFacts {
  actions: TokenAction[];
  /**
   * A call or typed data that was not read as token actions. `malformed`: it names a token
   * method or permit but not in its exact encoding; `other`: another method of a contract, or
   * other typed data. `token`: the contract concerned, when known (undefined: any token).
   */
  unreadable?: { kind: 'malformed' | 'other'; token?: string; reason: string };
}

export const UINT256_UNLIMITED = 1n << 255n;
export const UINT160_UNLIMITED = 1n << 159n;

const WORD = 64;

const SELECTORS = {
  a9059cbb: { kind: 'transfer', words: ['address', 'uint256'] },
  '23b872dd': { kind: 'transfer_from', words: ['address', 'address', 'uint256'] },
  '095ea7b3': { kind: 'approve', words: ['address', 'uint256'] },
  '39509351': { kind: 'increase_allowance', words: ['address', 'uint256'] },
} as const;

/** A 32-byte ABI word as an address: 12 zero bytes, then 20. Undefined when dirty. */
function addressWord(word: string): string | undefined {
  return /^0{24}[0-9a-f]{40}$/.test(word) ? `0x${word.slice(24)}` : undefined;
}

/**
 * The token actions of a transaction calling `to` with `data` (hex, with or without `0x`).
 * Empty calldata moves no token. A selector of `transfer`, `transferFrom`, `approve` or
 * `increaseAllowance` must be followed by exactly its arguments, addresses cleanly padded.
 */
export function erc20CallFacts(to: string | undefined, data: string): TokenFacts | undefined {
  const body = (data.startsWith('0x') ? data.slice(2) : data).toLowerCase();
  if (body.length === 0 || to === undefined) return undefined;
  const token = to.toLowerCase();
  const selector = body.slice(0, 8);
  const known = Object.hasOwn(SELECTORS, selector)
    ? SELECTORS[selector as keyof typeof SELECTORS]
    : undefined;
  if (!known) {
    return {
      actions: [],
      unreadable: {
        kind: 'other',
        token,
        reason: `The call 0x${selector} to ${token} is not a token method read here.`,
      },
    };
  }
  const malformed = (why: string): TokenFacts => ({
    actions: [],
    unreadable: {
      kind: 'malformed',
      token,
      reason: `The ${known.kind} calldata to ${token} cannot be decoded: ${why}.`,
    },
  });
  const args = body.slice(8);
  if (!/^[0-9a-f]*$/.test(args)) return malformed('not hex');
  if (args.length !== known.words.length * WORD)
    return malformed(`${args.length / 2} bytes of arguments, not ${known.words.length * 32}`);
  const words = known.words.map((_, i) => args.slice(i * WORD, (i + 1) * WORD));
  const addresses: string[] = [];
  for (const [i, type] of known.words.entries()) {
    if (type !== 'address') continue;
    const address = addressWord(words[i]!);
    if (address === undefined) return malformed(`argument ${i} is not a cleanly padded address`);
    addresses.push(address);
  }
  const amount = BigInt(`0x${words[words.length - 1]!}`);
  // transferFrom(from, to, amount): the tokens go to `to`.
  const counterparty = addresses[addresses.length - 1]!;
  const action: TokenAction = { kind: known.kind, token, counterparty, amount };
  if (known.kind === 'approve' || known.kind === 'increase_allowance')
    action.unlimitedFrom = UINT256_UNLIMITED;
  return { actions: [action] };
}
