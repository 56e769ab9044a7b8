import type { WalletSignatureRepo, WalletTransactionRecord, WalletTransactionRepo } from '@latchkey/core';
import { copy, indexKey } from './state.js';

type Stored = WalletTransactionRecord & { seq: number };

/**
 * Sent transactions and each wallet's nonce sequence per chain. The memory Storage runs one
 * operation at a time, so taking a nonce and inserting is atomic as written. `signatures`: the
 * audit trail's repo (the same one, unlocked), which `advance` writes to.
 */
export function memoryWalletTransactionRepo(
  rows: Map<string, Stored>,
  nonces: Map<string, { next: number; released: number[] }>,
  signatures: WalletSignatureRepo,
): WalletTransactionRepo {
  let seq = 0;
  const strip = ({ seq: _, ...t }: Stored): WalletTransactionRecord => copy(t);
  const find = (appId: string, id: string) => {
    const row = rows.get(id);
    return row?.app_id === appId ? row : undefined;
  };
  const byKey = (appId: string, walletId: string, key: string) => {
    for (const row of rows.values())
      if (row.app_id === appId && row.wallet_id === walletId && row.idempotency_key === key) return row;
    return undefined;
  };
  const put = (t: WalletTransactionRecord) => rows.set(t.id, { ...copy(t), seq: ++seq });
  const transition: WalletTransactionRepo['transition'] = async (appId, id, from, patch) => {
    const row = find(appId, id);
    if (!row || !from.includes(row.status)) return null;
    const updated = { ...row, ...copy(patch) };
    rows.set(id, updated);
    return strip(updated);
  };

  return {
    async insertWithNextNonce(t, floor) {
      if (t.idempotency_key !== null) {
        const first = byKey(t.app_id, t.wallet_id, t.idempotency_key);
        if (first) return { transaction: strip(first), created: false };
      }
      const key = indexKey(t.app_id, t.wallet_id, t.chain_id);
      const sequence = nonces.get(key) ?? { next: 0, released: [] };
      // Nonces given back below the chain's count were used by something else meanwhile.
      const released = sequence.released.filter((n) => n >= floor).sort((a, b) => a - b);
      let nonce: number;
      let next = sequence.next;
      if (released.length > 0) nonce = released.shift()!;
      else {
        nonce = Math.max(next, floor);
        next = nonce + 1;
      }
      nonces.set(key, { next, released });
      const stored = { ...t, nonce };
      put(stored);
      return { transaction: copy(stored), created: true };
    },

    async insert(t) {
      put(t);
    },

    async insertOnce(t) {
      if (t.idempotency_key !== null) {
        const first = byKey(t.app_id, t.wallet_id, t.idempotency_key);
        if (first) return { transaction: strip(first), created: false };
      }
      put(t);
      return { transaction: copy(t), created: true };
    },

    transition,

    // One operation: the entry, then the transition (the entry stays whether or not it moves).
    async advance(t, from, patch, signature) {
      if (signature) await signatures.insert(signature);
      return transition(t.app_id, t.id, from, patch);
    },

    async abandon(appId, id, from, patch) {
      const row = find(appId, id);
      if (!row || !from.includes(row.status)) return null;
      const updated: Stored = { ...row, ...patch, status: 'abandoned' };
      rows.set(id, updated);
      // A transaction without a nonce (Solana) has none to give back.
      if (row.nonce === null) return strip(updated);
      const key = indexKey(row.app_id, row.wallet_id, row.chain_id);
      const sequence = nonces.get(key) ?? { next: row.nonce + 1, released: [] };
      nonces.set(key, { next: sequence.next, released: [...sequence.released, row.nonce] });
      return strip(updated);
    },

    async get(appId, id) {
      const row = find(appId, id);
      return row ? strip(row) : null;
    },

    async findByIdempotencyKey(appId, walletId, key) {
      const row = byKey(appId, walletId, key);
      return row ? strip(row) : null;
    },

    async list(appId, walletId, { limit, before }) {
      const cursor = before === undefined ? undefined : find(appId, before);
      if (before !== undefined && (!cursor || cursor.wallet_id !== walletId))
        return { transactions: [], next_cursor: null };
      const matching = [...rows.values()]
        .filter((r) => r.app_id === appId && r.wallet_id === walletId && (!cursor || r.seq < cursor.seq))
        .sort((a, b) => b.seq - a.seq);
      const page = matching.slice(0, limit);
      return {
        transactions: page.map(strip),
        next_cursor: matching.length > limit ? page.at(-1)!.id : null,
      };
    },

    async listUnsent(appId, walletId, chainId) {
      return [...rows.values()]
        .filter(
          (r) =>
            r.app_id === appId &&
            r.wallet_id === walletId &&
            r.chain_id === chainId &&
            (r.status === 'preparing' || r.status === 'signed'),
        )
        .sort((a, b) => (a.nonce ?? 0) - (b.nonce ?? 0))
        .map(strip);
    },
  };
}
