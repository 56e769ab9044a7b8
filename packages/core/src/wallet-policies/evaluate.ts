import type { SigningRequest } from '../shared/signing-request.js';
import type { SpendAsset, WalletPolicyRecord } from './repo.js';
import { allowSet, type Check, lowerCase } from './rule-check.js';
import type { PolicyRule, PolicyRuleKind } from './rules.js';
import { checkTokenRule } from './token-rules.js';

/** Which rule of which policy: what a refusal and the audit trail name. */
export interface RuleRef {
  policy_id: string;
  rule_index: number;
  rule_kind: PolicyRuleKind;
}

export interface Refusal extends RuleRef {
  reason: string;
}

/** A rolling 24-hour cap the request counts against; the storage decides it atomically. */
export interface DailyCap {
  asset: SpendAsset;
  amount: bigint;
  /** The lowest of the caps that apply, and the rule that sets it. */
  limit: bigint;
  rule: RuleRef;
}

export type Verdict =
  | {
      allowed: true;
      /** One per asset the request moves under a daily cap (native value, each token), the lowest limit each. */
      caps: DailyCap[];
      /** @deprecated The first of `caps` (null when none): a request can now move several assets. */
      cap: DailyCap | null;
    }
  | { allowed: false; refusal: Refusal };

/**
 * Judges `request` against every rule of every policy, in order; the first rule that refuses is
 * the answer. Pure: daily caps come back as the amounts to reserve, for the storage to count.
 * Rules about facts a request does not carry (EVM rules on a Solana transaction, value rules on
 * a message) do not apply to it; `allowed_methods` and `allowed_chains` restrict those.
 */
export function evaluatePolicies(request: SigningRequest, policies: WalletPolicyRecord[]): Verdict {
  const caps = new Map<SpendAsset, DailyCap>();
  for (const policy of policies) {
    for (const [index, rule] of policy.rules.entries()) {
      const ref: RuleRef = { policy_id: policy.id, rule_index: index, rule_kind: rule.kind };
      const result = checkRule(rule, request);
      if (result === null) continue;
      if ('refused' in result) return { allowed: false, refusal: { ...ref, reason: result.refused } };
      const c = result.cap;
      if (c.amount > c.limit) {
        return {
          allowed: false,
          refusal: { ...ref, reason: `The amount ${c.amount} is above the daily cap of ${c.limit}.` },
        };
      }
      // Of several caps on one asset, the lowest decides; each asset is counted apart.
      const known = caps.get(c.asset);
      if (!known || c.limit < known.limit) caps.set(c.asset, { ...c, rule: ref });
    }
  }
  const all = [...caps.values()];
  return { allowed: true, caps: all, cap: all[0] ?? null };
}

const same = (x: string) => x;

/** Bech32 addresses compare in any case; base58 ones exactly. */
const bitcoinKey = (address: string) => (/^(bc|tb|bcrt)1/i.test(address) ? address.toLowerCase() : address);

function checkRule(rule: PolicyRule, r: SigningRequest): Check {
  switch (rule.kind) {
    case 'allowed_methods':
      return rule.methods.includes(r.method) ? null : { refused: `The method ${r.method} is not allowed.` };
    case 'allowed_chains':
      return rule.chains.includes(r.chain)
        ? null
        : { refused: `Signing with ${r.chain} wallets is not allowed.` };
    case 'evm_chain_allowlist':
      if (!r.evm) return null;
      return allowSet(rule.chain_ids, same).has(r.evm.chain_id.toString())
        ? null
        : { refused: `The EVM chain id ${r.evm.chain_id} is not allowed.` };
    case 'evm_to_allowlist':
      if (!r.evm) return null;
      if (r.evm.to === undefined) return { refused: 'The transaction has no recipient (contract creation).' };
      return allowSet(rule.addresses, lowerCase).has(r.evm.to.toLowerCase())
        ? null
        : { refused: `The recipient ${r.evm.to} is not in the allow-list.` };
    case 'evm_selector_allowlist':
      if (!r.evm || r.evm.selector === undefined) return null;
      return allowSet(rule.selectors, lowerCase).has(r.evm.selector.toLowerCase())
        ? null
        : { refused: `The method selector ${r.evm.selector} is not allowed.` };
    case 'evm_max_value': {
      if (!r.evm || !onChain(rule.chain_id, r.evm.chain_id)) return null;
      const max = BigInt(rule.max_wei);
      return r.evm.value <= max ? null : { refused: `The value ${r.evm.value} wei is above ${max} wei.` };
    }
    case 'evm_daily_value':
      if (!r.evm || !onChain(rule.chain_id, r.evm.chain_id) || r.evm.value === 0n) return null;
      return { cap: { asset: `evm:${r.evm.chain_id}`, amount: r.evm.value, limit: BigInt(rule.max_wei) } };
    case 'solana_program_allowlist': {
      if (!r.solana) return null;
      const allowed = allowSet(rule.programs, same);
      const other = r.solana.programs.find((p) => !allowed.has(p));
      return other === undefined ? null : { refused: `The program ${other} is not in the allow-list.` };
    }
    case 'solana_max_lamports': {
      if (!r.solana) return null;
      const max = BigInt(rule.max_lamports);
      return r.solana.lamports <= max
        ? null
        : { refused: `${r.solana.lamports} lamports is above ${max} lamports.` };
    }
    case 'solana_daily_lamports':
      if (!r.solana || r.solana.lamports === 0n) return null;
      return {
        cap: { asset: 'solana:lamports', amount: r.solana.lamports, limit: BigInt(rule.max_lamports) },
      };
    case 'bitcoin_max_output_value': {
      if (!r.bitcoin) return null;
      const max = BigInt(rule.max_sats);
      const paid = paidOut(r).reduce((sum, o) => sum + o.value, 0n);
      return paid <= max ? null : { refused: `${paid} satoshis paid out is above ${max}.` };
    }
    case 'evm_token_max_amount':
    case 'evm_token_daily_amount':
    case 'evm_token_recipient_allowlist':
    case 'evm_token_spender_allowlist':
    case 'evm_token_no_unlimited_approval':
      return checkTokenRule(rule, r);
    case 'bitcoin_address_allowlist': {
      if (!r.bitcoin) return null;
      const allowed = allowSet(rule.addresses, bitcoinKey);
      const other = paidOut(r).find((o) => o.address === undefined || !allowed.has(bitcoinKey(o.address)));
      if (!other) return null;
      return {
        refused: other.address
          ? `The address ${other.address} is not in the allow-list.`
          : 'An output pays a script with no address.',
      };
    }
  }
}

const onChain = (ruleChain: string | undefined, chainId: bigint) =>
  ruleChain === undefined || ruleChain === chainId.toString();

/** Outputs paying someone else: value to the wallet's own address is change, and empty outputs (OP_RETURN data) pay no one. */
function paidOut(r: SigningRequest) {
  const own = bitcoinKey(r.wallet.public_address);
  return (r.bitcoin?.outputs ?? []).filter(
    (o) => o.value > 0n && (o.address === undefined || bitcoinKey(o.address) !== own),
  );
}
