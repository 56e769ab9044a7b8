import type {
  WalletPolicyRecord,
  WalletPolicyRepo,
  WalletSignatureRecord,
  WalletSignatureRepo,
  WalletSpendRecord,
  WalletSpendRepo,
} from '@latchkey/core';
import { copy, indexKey, type StoredSignature } from './state.js';

export function memoryWalletPolicyRepo(rows: Map<string, WalletPolicyRecord>): WalletPolicyRepo {
  const ofApp = (appId: string) =>
    [...rows.values()].filter((p) => p.app_id === appId).sort((a, b) => (a.id < b.id ? -1 : 1));
  return {
    async insert(policy) {
      rows.set(policy.id, copy(policy));
    },
    async get(appId, policyId) {
      const p = rows.get(policyId);
      return p && p.app_id === appId ? copy(p) : null;
    },
    async list(appId, { walletId, limit, after }) {
      const all = ofApp(appId).filter(
        (p) => (walletId === undefined || p.wallet_id === walletId) && (after === undefined || p.id > after),
      );
      const page = all.slice(0, limit);
      return { policies: page.map(copy), next_cursor: all.length > limit ? page.at(-1)!.id : null };
    },
    async listForWallet(appId, walletId) {
      return ofApp(appId)
        .filter((p) => p.wallet_id === null || p.wallet_id === walletId)
        .map(copy);
    },
    async update(appId, policyId, patch) {
      const p = rows.get(policyId);
      if (!p || p.app_id !== appId) return null;
      const next: WalletPolicyRecord = {
        ...p,
        ...(patch.name === undefined ? {} : { name: patch.name }),
        ...(patch.rules === undefined ? {} : { rules: patch.rules }),
        updated_at: patch.updated_at,
      };
      rows.set(policyId, copy(next));
      return copy(next);
    },
    async delete(appId, policyId) {
      const p = rows.get(policyId);
      if (!p || p.app_id !== appId) return false;
      rows.delete(policyId);
      return true;
    },
  };
}

/** Each method runs alone under the memory Storage's lock: the sum and the insert cannot interleave. */
export function memoryWalletSpendRepo(rows: Map<string, WalletSpendRecord>): WalletSpendRepo {
  return {
    async reserve(spend, since, limit) {
      let spent = 0n;
      for (const s of rows.values()) {
        if (
          s.app_id === spend.app_id &&
          s.wallet_id === spend.wallet_id &&
          s.asset === spend.asset &&
          s.created_at > since
        )
          spent += s.amount;
      }
      const reserved = spent + spend.amount <= limit;
      if (reserved) rows.set(spend.id, copy(spend));
      return { reserved, spent };
    },
    async release(appId, spendId) {
      if (rows.get(spendId)?.app_id === appId) rows.delete(spendId);
    },
    async prune(before) {
      for (const [id, s] of rows) if (s.created_at < before) rows.delete(id);
    },
  };
}

/**
 * The audit trail. Each wallet's entry ids are kept in insertion order, so a page newest first
 * is a walk back from the cursor: no scan of every App's entries and no sort per list.
 */
export function memoryWalletSignatureRepo(
  rows: Map<string, StoredSignature>,
  byWallet: Map<string, string[]>,
): WalletSignatureRepo {
  let seq = 0;
  const strip = ({ seq: _, ...entry }: StoredSignature): WalletSignatureRecord => copy(entry);
  return {
    async insert(entry) {
      seq += 1;
      rows.set(entry.id, { ...copy(entry), seq });
      const key = indexKey(entry.app_id, entry.wallet_id);
      const ids = byWallet.get(key);
      if (ids) ids.push(entry.id);
      else byWallet.set(key, [entry.id]);
    },
    async list(appId, walletId, { limit, before }) {
      const ids = byWallet.get(indexKey(appId, walletId)) ?? [];
      let end = ids.length;
      if (before !== undefined) {
        const cursor = rows.get(before);
        if (!cursor || cursor.app_id !== appId) return { signatures: [], next_cursor: null };
        end = firstAtOrAfter(ids, cursor.seq, (id) => rows.get(id)!.seq);
      }
      const page = ids
        .slice(Math.max(0, end - limit), end)
        .reverse()
        .map((id) => strip(rows.get(id)!));
      return { signatures: page, next_cursor: end > limit ? page.at(-1)!.id : null };
    },
  };
}

/** The first index in `ids` (ascending by `seqOf`) whose seq is at least `seq`. */
function firstAtOrAfter(ids: string[], seq: number, seqOf: (id: string) => number): number {
  let [lo, hi] = [0, ids.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seqOf(ids[mid]!) < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
