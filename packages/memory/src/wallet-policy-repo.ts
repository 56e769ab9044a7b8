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
    async insert(policy, { maxPerApp }) {
      // Each method runs alone under the memory Storage's lock: the count and the insert cannot interleave.
      if (ofApp(policy.app_id).length >= maxPerApp) return { inserted: false };
      rows.set(policy.id, copy(policy));
      return { inserted: true };
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
 * The audit trail. Each entry links to the wallet's entry before it and the index keeps each
 * wallet's newest, so a page newest first is a walk back from the cursor (no scan, no sort), and
 * an insert touches two small rows: inside a transaction the undo log copies those, not a list
 * of every entry the wallet ever had (which made each signature slower as the trail grew).
 */
export function memoryWalletSignatureRepo(
  rows: Map<string, StoredSignature>,
  newest: Map<string, { id: string }>,
): WalletSignatureRepo {
  let seq = 0;
  const strip = ({ seq: _, prev: __, ...entry }: StoredSignature): WalletSignatureRecord => copy(entry);
  return {
    async insert(entry) {
      seq += 1;
      const key = indexKey(entry.app_id, entry.wallet_id);
      rows.set(entry.id, { ...copy(entry), seq, prev: newest.get(key)?.id ?? null });
      newest.set(key, { id: entry.id });
    },
    async list(appId, walletId, { limit, before }) {
      let id = newest.get(indexKey(appId, walletId))?.id ?? null;
      if (before !== undefined) {
        const cursor = rows.get(before);
        if (!cursor || cursor.app_id !== appId) return { signatures: [], next_cursor: null };
        if (cursor.wallet_id === walletId) id = cursor.prev;
        // Another wallet's entry: this wallet's entries made before it, as SQL pages by seq.
        else while (id !== null && rows.get(id)!.seq >= cursor.seq) id = rows.get(id)!.prev;
      }
      const page: WalletSignatureRecord[] = [];
      while (id !== null && page.length < limit) {
        const row = rows.get(id)!;
        page.push(strip(row));
        id = row.prev;
      }
      return { signatures: page, next_cursor: id !== null ? page.at(-1)!.id : null };
    },
  };
}
