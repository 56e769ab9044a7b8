import type { SeedRecord, SeedRepo, WalletRecord, WalletRepo } from '@latchkey/core';
import { copy } from './state.js';

export function memoryWalletRepo(rows: Map<string, WalletRecord>): WalletRepo {
  const find = (pred: (w: WalletRecord) => boolean) => [...rows.values()].find(pred);
  const defaultOf = (appId: string, userId: string, type: string) =>
    find((w) => w.app_id === appId && w.user_id === userId && w.wallet_type === type && w.is_default);
  const sameAddress = (w: WalletRecord) =>
    find(
      (r) =>
        r.app_id === w.app_id && r.wallet_type === w.wallet_type && r.public_address === w.public_address,
    );
  return {
    async createDefaultIfAbsent(wallet) {
      const existing = defaultOf(wallet.app_id, wallet.user_id, wallet.wallet_type);
      if (existing) return { wallet: copy(existing), created: false };
      const taken = sameAddress(wallet);
      if (taken) return { wallet: copy(taken), created: false };
      rows.set(wallet.id, copy({ ...wallet, is_default: true }));
      return { wallet: copy({ ...wallet, is_default: true }), created: true };
    },
    async insert(wallet) {
      if (sameAddress(wallet)) return { inserted: false };
      rows.set(wallet.id, copy(wallet));
      return { inserted: true };
    },
    async get(appId, walletId) {
      const w = rows.get(walletId);
      return w && w.app_id === appId ? copy(w) : null;
    },
    async getDefault(appId, userId, type) {
      const w = defaultOf(appId, userId, type);
      return w ? copy(w) : null;
    },
    async findByAddress(appId, type, address) {
      const w = find((r) => r.app_id === appId && r.wallet_type === type && r.public_address === address);
      return w ? copy(w) : null;
    },
    async list(appId, { userId, limit, after }) {
      const all = [...rows.values()]
        .filter(
          (w) =>
            w.app_id === appId &&
            (userId === undefined || w.user_id === userId) &&
            (after === undefined || w.id > after),
        )
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      const page = all.slice(0, limit);
      return { wallets: page.map(copy), next_cursor: all.length > limit ? page.at(-1)!.id : null };
    },
  };
}

export function memorySeedRepo(rows: Map<string, SeedRecord>): SeedRepo {
  const ofUser = (appId: string, userId: string) =>
    [...rows.values()].find((s) => s.app_id === appId && s.user_id === userId);
  return {
    async insertIfAbsent(seed) {
      const existing = ofUser(seed.app_id, seed.user_id);
      if (existing) return copy(existing);
      rows.set(seed.id, copy(seed));
      return copy(seed);
    },
    async get(appId, userId) {
      const s = ofUser(appId, userId);
      return s ? copy(s) : null;
    },
  };
}
