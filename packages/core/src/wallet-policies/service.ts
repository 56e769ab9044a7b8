import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { SigningRequest, SignUnder } from '../shared/signing-request.js';
import { evaluatePolicies, type RuleRef } from './evaluate.js';
import type { SignatureDecision, WalletPolicyRecord, WalletSignatureRecord } from './repo.js';
import type { CreatePolicyRequest, UpdatePolicyRequest, WalletPolicy } from './schema.js';
import { policyRecordsOnce } from './shared-records.js';

/**
 * How long a process keeps an App's policies for its signatures without reading them again. A
 * change made in this process applies at once; one made in another process within this long.
 */
export const POLICY_CACHE_SECONDS = 5;

/**
 * Policies one App may keep. Every signature by a wallet judges all of the App's policies and
 * its own on the process's one event loop, which every App shares: the work one App's key can
 * put on each signature is bounded here (with at most 50 rules per policy).
 */
export const MAX_POLICIES_PER_APP = 100;

/** Daily caps are rolling: a spend counts for this long after it is made. */
export const DAILY_WINDOW_SECONDS = 24 * 60 * 60;

export const policyView = (p: WalletPolicyRecord): WalletPolicy => ({
  policy_id: p.id,
  app_id: p.app_id,
  name: p.name,
  wallet_id: p.wallet_id,
  rules: p.rules,
  created_at: p.created_at,
  updated_at: p.updated_at,
});

const signatureView = (s: WalletSignatureRecord) => ({
  id: s.id,
  wallet_id: s.wallet_id,
  method: s.method,
  chain: s.chain,
  payload_digest: s.payload_digest,
  decision: s.decision,
  policy_id: s.policy_id,
  rule_index: s.rule_index,
  rule_kind: s.rule_kind,
  error_type: s.error_type,
  key_kind: s.key_kind,
  created_at: s.created_at,
});

/** Wallets whose policies one App keeps cached; past this the App's entries start over. */
export const MAX_CACHED_WALLETS = 10_000;

/** Distinct policies one App keeps cached; past this its copies start over. */
const MAX_CACHED_POLICIES = 10_000;

export type WalletPolicyService = ReturnType<typeof walletPolicyService>;

/** Wallet policies, the gate every signature passes (`signUnder`), and the audit trail it writes. */
export function walletPolicyService(k: Kernel) {
  let reservationsSincePrune = 0;
  // App id → wallet id → the policies a signature by that wallet answers to, each policy held once
  // per App. Only what a signature reads is cached; the caps' running totals are not (storage
  // keeps those exact).
  type AppCache = {
    wallets: Map<string, { policies: WalletPolicyRecord[]; until: number }>;
    once: (records: WalletPolicyRecord[]) => WalletPolicyRecord[];
  };
  const cached = new Map<string, AppCache>();

  let changes = 0;

  async function policiesFor(appId: string, walletId: string): Promise<WalletPolicyRecord[]> {
    const hit = cached.get(appId)?.wallets.get(walletId);
    if (hit && hit.until > k.now()) return hit.policies;
    const seen = changes;
    const read = await k.storage.walletPolicies.listForWallet(appId, walletId);
    // A change made in this process while the read ran: do not keep what it may have replaced.
    if (seen !== changes) return read;
    let ofApp = cached.get(appId);
    if (!ofApp) {
      ofApp = { wallets: new Map(), once: policyRecordsOnce(MAX_CACHED_POLICIES) };
      cached.set(appId, ofApp);
    }
    if (ofApp.wallets.size >= MAX_CACHED_WALLETS) ofApp.wallets.clear();
    const policies = ofApp.once(read);
    ofApp.wallets.set(walletId, { policies, until: k.now() + POLICY_CACHE_SECONDS });
    return policies;
  }

  const forget = (appId: string) => {
    changes++;
    cached.delete(appId);
  };

  async function requireWallet(appId: string, walletId: string) {
    const wallet = await k.storage.wallets.get(appId, walletId);
    if (!wallet) throw new LatchkeyError('wallet_not_found');
    return wallet;
  }

  async function requirePolicy(appId: string, policyId: string) {
    const policy = await k.storage.walletPolicies.get(appId, policyId);
    if (!policy) throw new LatchkeyError('policy_not_found');
    return policy;
  }

  /** An audit entry for every signing request that reached the gate, whatever its outcome. */
  function entryFor(
    request: SigningRequest,
    decision: SignatureDecision,
    detail: { rule?: RuleRef; errorType?: string } = {},
  ): WalletSignatureRecord {
    return {
      id: k.id('signature'),
      app_id: request.app_id,
      wallet_id: request.wallet.id,
      method: request.method,
      chain: request.chain,
      payload_digest: request.payload_digest,
      decision,
      policy_id: detail.rule?.policy_id ?? null,
      rule_index: detail.rule?.rule_index ?? null,
      rule_kind: detail.rule?.rule_kind ?? null,
      error_type: detail.errorType ?? null,
      key_kind: request.key_kind,
      created_at: k.now(),
    };
  }

  const record = (...args: Parameters<typeof entryFor>) =>
    k.storage.walletSignatures.insert(entryFor(...args));

  async function refuse(request: SigningRequest, rule: RuleRef, reason: string): Promise<never> {
    await record(request, 'refused', { rule });
    throw new LatchkeyError(
      'policy_violation',
      `${reason} (policy ${rule.policy_id}, rule ${rule.rule_index}: ${rule.rule_kind})`,
      { policyRule: { policy_id: rule.policy_id, rule_index: rule.rule_index, rule_kind: rule.rule_kind } },
    );
  }

  /**
   * Judges the request before any key is opened; counts it against each daily cap, one atomic
   * storage step per asset; signs. A refusal or a failure is recorded here (a spend whose
   * signature failed is released); an allowed signature's entry comes back unwritten, for the
   * caller to record before the signature leaves the process.
   */
  async function signUnderHeld<T>(
    request: SigningRequest,
    sign: () => Promise<T>,
  ): Promise<{ result: T; entry: WalletSignatureRecord }> {
    const policies = await policiesFor(request.app_id, request.wallet.id);
    const verdict = evaluatePolicies(request, policies);
    if (!verdict.allowed) return refuse(request, verdict.refusal, verdict.refusal.reason);
    // Each asset's cap is reserved in its own atomic step. A later refusal releases the earlier
    // ones: while held, they may refuse a concurrent request that would have fit (never the reverse).
    const spendIds: string[] = [];
    const releaseAll = () =>
      Promise.all(spendIds.map((id) => k.storage.walletSpends.release(request.app_id, id)));
    for (const cap of verdict.caps) {
      const now = k.now();
      const id = k.id('spend');
      const { reserved, spent } = await k.storage.walletSpends.reserve(
        {
          id,
          app_id: request.app_id,
          wallet_id: request.wallet.id,
          asset: cap.asset,
          amount: cap.amount,
          created_at: now,
        },
        now - DAILY_WINDOW_SECONDS,
        cap.limit,
      );
      if (!reserved) {
        await releaseAll();
        return refuse(
          request,
          cap.rule,
          `The amount ${cap.amount} would bring the last 24 hours to ${spent + cap.amount}, above the cap of ${cap.limit}.`,
        );
      }
      spendIds.push(id);
      if (++reservationsSincePrune >= 1000) {
        reservationsSincePrune = 0;
        // Spends older than the window no longer count towards any cap.
        k.storage.walletSpends.prune(now - DAILY_WINDOW_SECONDS).catch(() => {});
      }
    }
    let result: T;
    try {
      result = await sign();
    } catch (err) {
      await releaseAll();
      await record(request, 'failed', {
        errorType: err instanceof LatchkeyError ? err.errorType : 'internal_error',
      });
      throw err;
    }
    return { result, entry: entryFor(request, 'allowed') };
  }

  /** The gate every signature passes: `signUnderHeld`, its allowed entry recorded at once. */
  async function signUnder<T>(request: SigningRequest, sign: () => Promise<T>): Promise<T> {
    const { result, entry } = await signUnderHeld(request, sign);
    await k.storage.walletSignatures.insert(entry);
    return result;
  }

  return {
    signUnder: signUnder satisfies SignUnder,
    /**
     * The gate, for a caller that stores the signature it makes (a send's signed transaction):
     * an allowed signature's audit entry comes back unwritten, to be written in the same step as
     * the signature (WalletTransactionRepo.advance), before the signature leaves the process.
     * Refusals and failures are in the trail when this throws.
     */
    signUnderHeld,

    async create(appId: string, input: CreatePolicyRequest): Promise<WalletPolicy> {
      if (input.wallet_id !== undefined) await requireWallet(appId, input.wallet_id);
      const now = k.now();
      const policy: WalletPolicyRecord = {
        id: k.id('policy'),
        app_id: appId,
        name: input.name,
        wallet_id: input.wallet_id ?? null,
        rules: input.rules,
        created_at: now,
        updated_at: now,
      };
      const { inserted } = await k.storage.walletPolicies.insert(policy, { maxPerApp: MAX_POLICIES_PER_APP });
      if (!inserted) throw new LatchkeyError('policy_limit_reached');
      forget(appId);
      return policyView(policy);
    },

    async get(appId: string, policyId: string): Promise<WalletPolicy> {
      return policyView(await requirePolicy(appId, policyId));
    },

    async list(
      appId: string,
      query: { wallet_id?: string | undefined; limit?: number | undefined; cursor?: string | undefined },
    ) {
      const page = await k.storage.walletPolicies.list(appId, {
        walletId: query.wallet_id,
        limit: query.limit ?? 100,
        after: query.cursor,
      });
      return { policies: page.policies.map(policyView), next_cursor: page.next_cursor };
    },

    async update(appId: string, policyId: string, patch: UpdatePolicyRequest): Promise<WalletPolicy> {
      const updated = await k.storage.walletPolicies.update(appId, policyId, {
        name: patch.name,
        rules: patch.rules,
        updated_at: k.now(),
      });
      forget(appId);
      if (!updated) throw new LatchkeyError('policy_not_found');
      return policyView(updated);
    },

    async delete(appId: string, policyId: string) {
      const deleted = await k.storage.walletPolicies.delete(appId, policyId);
      forget(appId);
      if (!deleted) throw new LatchkeyError('policy_not_found');
      return { policy_id: policyId, deleted: true as const };
    },

    /** The wallet's audit trail, newest first; another App's wallet is not found. */
    async signatures(
      appId: string,
      walletId: string,
      query: { limit?: number | undefined; cursor?: string | undefined },
    ) {
      await requireWallet(appId, walletId);
      const page = await k.storage.walletSignatures.list(appId, walletId, {
        limit: query.limit ?? 100,
        before: query.cursor,
      });
      return { signatures: page.signatures.map(signatureView), next_cursor: page.next_cursor };
    },
  };
}
