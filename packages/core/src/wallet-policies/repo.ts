import type { ApiKeyKind } from '../apps/repo.js';
import type { EventRecord } from '../events/repo.js';
import type { SigningRequest } from '../shared/signing-request.js';
import type { PolicyRule, PolicyRuleKind } from './rules.js';

/** Rules an App sets on its wallets' signatures: on every wallet (`wallet_id` null) or on one. */
export interface WalletPolicyRecord {
  id: string;
  app_id: string;
  name: string;
  wallet_id: string | null;
  rules: PolicyRule[];
  created_at: number;
  updated_at: number;
}

export interface WalletPolicyPage {
  policies: WalletPolicyRecord[];
  next_cursor: string | null;
}

export interface WalletPolicyRepo {
  /**
   * Stores the policy unless its App already has `maxPerApp` of them (`inserted` false then),
   * exactly under concurrency: another insert for the App cannot come between the count and the
   * insert.
   */
  insert(policy: WalletPolicyRecord, limits: { maxPerApp: number }): Promise<{ inserted: boolean }>;
  get(appId: string, policyId: string): Promise<WalletPolicyRecord | null>;
  /** Policies ordered by id, after the cursor id, optionally those attached to one wallet. */
  list(
    appId: string,
    query: { walletId?: string | undefined; limit: number; after?: string | undefined },
  ): Promise<WalletPolicyPage>;
  /** The policies a signature by this wallet answers to: the App's and the wallet's own, by id. */
  listForWallet(appId: string, walletId: string): Promise<WalletPolicyRecord[]>;
  /** Sets what `patch` names; null when there is no such policy. */
  update(
    appId: string,
    policyId: string,
    patch: { name?: string | undefined; rules?: PolicyRule[] | undefined; updated_at: number },
  ): Promise<WalletPolicyRecord | null>;
  /** False when there was no such policy. */
  delete(appId: string, policyId: string): Promise<boolean>;
}

/**
 * What a daily cap counts: EVM value per chain id (`evm:<chain_id>`, wei), Solana lamports, or an
 * ERC-20 token (`erc20:<chain_id>:<lower-case contract>`, the token's smallest unit).
 */
export type SpendAsset = `evm:${string}` | 'solana:lamports' | `erc20:${string}`;

/** Value a signature let leave a wallet: the ledger the rolling daily caps sum over. */
export interface WalletSpendRecord {
  id: string;
  app_id: string;
  wallet_id: string;
  asset: SpendAsset;
  amount: bigint;
  created_at: number;
}

export interface WalletSpendRepo {
  /**
   * Atomically: sums the wallet's spends of `spend.asset` made after `since`, and records
   * `spend` only if that sum plus `spend.amount` stays within `limit`. `spent` is the sum before
   * this spend. Of concurrent callers in any number of processes, the recorded spends of one
   * wallet never exceed `limit` together within a window.
   */
  reserve(
    spend: WalletSpendRecord,
    since: number,
    limit: bigint,
  ): Promise<{ reserved: boolean; spent: bigint }>;
  /** Removes a reserved spend whose signature was not made. */
  release(appId: string, spendId: string): Promise<void>;
  /** Deletes spends made before `before`: no window reaches them any more. */
  prune(before: number): Promise<void>;
}

/** What became of a signing request: signed, refused by a policy, or allowed but failed to sign. */
export type SignatureDecision = 'allowed' | 'refused' | 'failed';

/** One audit-trail entry: every signing request a wallet received, whatever became of it. */
export interface WalletSignatureRecord {
  id: string;
  app_id: string;
  wallet_id: string;
  method: 'sign_message' | 'sign_typed_data' | 'sign_transaction';
  chain: SigningRequest['chain'];
  /** Hex SHA-256 of the payload; the payload itself is not kept. */
  payload_digest: string;
  decision: SignatureDecision;
  /** The rule that refused, for `refused`. */
  policy_id: string | null;
  rule_index: number | null;
  rule_kind: PolicyRuleKind | null;
  /** The error of a `failed` signature. */
  error_type: string | null;
  key_kind: ApiKeyKind;
  created_at: number;
}

export interface WalletSignaturePage {
  signatures: WalletSignatureRecord[];
  next_cursor: string | null;
}

export interface WalletSignatureRepo {
  insert(entry: WalletSignatureRecord): Promise<void>;
  /**
   * Optional: `insert` and the events it implies (each with its webhook deliveries, as
   * EventRepo.insert writes them) in one atomic step, so that a signature's audit entry costs
   * one round trip to the database. Without it they are written in one transaction.
   */
  insertWithEvents?(entry: WalletSignatureRecord, events: EventRecord[]): Promise<void>;
  /**
   * The wallet's entries newest first (in insertion order, not by clock), before the entry
   * whose id is the cursor.
   */
  list(
    appId: string,
    walletId: string,
    query: { limit: number; before?: string | undefined },
  ): Promise<WalletSignaturePage>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    walletPolicies: WalletPolicyRepo;
    walletSpends: WalletSpendRepo;
    /** The audit trail of signing requests. */
    walletSignatures: WalletSignatureRepo;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    policy: true;
    signature: true;
    spend: true;
  }
}
