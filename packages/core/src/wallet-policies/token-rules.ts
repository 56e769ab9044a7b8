import { isGrant, type TokenAction } from '../chains/evm-token-calls.js';
import type { SigningRequest } from '../shared/signing-request.js';
import { allowSet, type Check, lowerCase } from './rule-check.js';
import type { PolicyRule } from './rules.js';

type TokenRule = Extract<
  PolicyRule,
  {
    kind:
      | 'evm_token_max_amount'
      | 'evm_token_daily_amount'
      | 'evm_token_recipient_allowlist'
      | 'evm_token_spender_allowlist'
      | 'evm_token_no_unlimited_approval';
  }
>;

/** Transfers whose recipient the signature names (a Permit2 transfer's recipient is its spender's choice). */
const isTransfer = (a: TokenAction) =>
  a.kind === 'transfer' || a.kind === 'transfer_from' || a.kind === 'transfer_with_authorization';

/** The tokens a rule judges (lower case): one for a cap, a list, or every token (undefined). */
function scopeOf(rule: TokenRule): { has(token: string): boolean } | undefined {
  if ('token' in rule) {
    const token = rule.token.toLowerCase();
    return { has: (t) => t === token };
  }
  return rule.tokens === undefined ? undefined : allowSet(rule.tokens, lowerCase);
}

/**
 * Typed data without a `chainId` in its domain (read as chain 0) is judged by the token rules of
 * every chain: a permit whose domain names no chain could be honoured on any, so a rule naming
 * one chain does not let it pass.
 */
const onChain = (ruleChain: string | undefined, chainId: bigint) =>
  ruleChain === undefined || chainId === 0n || ruleChain === chainId.toString();

/**
 * Token rules judge the ERC-20 calls and permits read from the request. Fail closed on what was not
 * read: a call or typed data that names a token method or permit without its exact encoding is
 * refused by every token rule that could cover it, and any other call or typed data bound to a
 * token a rule lists is refused by that rule (it could move the token in a way not read here).
 * Other contracts' calls pass a rule without a token list: a router or multicall moving tokens is
 * not visible from its calldata (docs/wallet-policies.md).
 */
export function checkTokenRule(rule: TokenRule, r: SigningRequest): Check {
  const facts = r.evm?.tokens;
  if (!r.evm || !facts || !onChain(rule.chain_id, r.evm.chain_id)) return null;
  const scope = scopeOf(rule);
  const inScope = (token: string) => scope === undefined || scope.has(token);

  const u = facts.unreadable;
  if (u) {
    const covered =
      u.kind === 'malformed'
        ? u.token === undefined || inScope(u.token)
        : scope !== undefined && u.token !== undefined && scope.has(u.token);
    if (covered) return { refused: `${u.reason} Token rules refuse what they cannot read.` };
  }
  const actions = facts.actions.filter((a) => inScope(a.token));
  if (actions.length === 0) return null;

  switch (rule.kind) {
    case 'evm_token_max_amount': {
      const total = actions.reduce((sum, a) => sum + a.amount, 0n);
      const max = BigInt(rule.max_amount);
      return total <= max
        ? null
        : { refused: `${total} of token ${rule.token} is above ${max} per signature.` };
    }
    case 'evm_token_daily_amount': {
      const total = actions.reduce((sum, a) => sum + a.amount, 0n);
      if (total === 0n) return null;
      return {
        cap: {
          asset: `erc20:${rule.chain_id}:${rule.token.toLowerCase()}`,
          amount: total,
          limit: BigInt(rule.max_amount),
        },
      };
    }
    case 'evm_token_recipient_allowlist': {
      const allowed = allowSet(rule.addresses, lowerCase);
      const other = actions.find((a) => isTransfer(a) && !allowed.has(a.counterparty));
      return other
        ? { refused: `The token recipient ${other.counterparty} is not in the allow-list.` }
        : null;
    }
    case 'evm_token_spender_allowlist': {
      const allowed = allowSet(rule.addresses, lowerCase);
      // Revoking (approving 0) must stay possible, above all for a spender no longer trusted.
      const other = actions.find((a) => isGrant(a) && a.amount > 0n && !allowed.has(a.counterparty));
      return other ? { refused: `The token spender ${other.counterparty} is not in the allow-list.` } : null;
    }
    case 'evm_token_no_unlimited_approval': {
      const fixed = rule.unlimited_at === undefined ? undefined : BigInt(rule.unlimited_at);
      const over = actions.find((a) => {
        const limit = fixed ?? a.unlimitedFrom;
        return isGrant(a) && limit !== undefined && a.amount >= limit;
      });
      return over
        ? {
            refused: `An approval of ${over.amount} of token ${over.token} to ${over.counterparty} is unlimited.`,
          }
        : null;
    }
  }
}
