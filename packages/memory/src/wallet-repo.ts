import {
  LatchkeyError,
  type SeedRecord,
  type SeedRepo,
  type WalletRecord,
  type WalletRepo,
} from '@latchkey/core';
import { copy, indexKey, type MemoryState } from './state.js';

type WalletIndexes = Pick<MemoryState['index'], 'walletDefaults' | 'walletAddresses' | 'seedsByUser'>;

/** Whether the App has this user: what the SQL storages' foreign keys check on insert. */
export type UserExists = (appId: string, userId: string) => boolean;

export function memoryWalletRepo(
  rows: Map<string, WalletRecord>,
  seeds: Map<string, SeedRecord>,
  index: WalletIndexes,
  userExists: UserExists,
): WalletRepo {
  const seedOf = (appId: string, userId: string) => {
    const id = index.seedsByUser.get(indexKey(appId, userId))?.id;
    return id === undefined ? undefined : seeds.get(id);
  };
  const defaultKey = (appId: string, userId: string, type: string) => indexKey(appId, userId, type);
  const addressKey = (appId: string, type: string, address: string) => indexKey(appId, type, address);
  const byIndex = (map: Map<string, { id: string }>, key: string) => {
    const id = map.get(key)?.id;
    return id === undefined ? undefined : rows.get(id);
  };
  const defaultOf = (appId: string, userId: string, type: string) =>
    byIndex(index.walletDefaults, defaultKey(appId, userId, type));
  const sameAddress = (w: WalletRecord) =>
    byIndex(index.walletAddresses, addressKey(w.app_id, w.wallet_type, w.public_address));
  const store = (wallet: WalletRecord) => {
    rows.set(wallet.id, copy(wallet));
    index.walletAddresses.set(addressKey(wallet.app_id, wallet.wallet_type, wallet.public_address), {
      id: wallet.id,
    });
    if (wallet.is_default)
      index.walletDefaults.set(defaultKey(wallet.app_id, wallet.user_id, wallet.wallet_type), {
        id: wallet.id,
      });
  };
  return {
    async getDefaultWithSeed(appId, userId, type) {
      const wallet = defaultOf(appId, userId, type);
      const seed = seedOf(appId, userId);
      return { wallet: wallet ? copy(wallet) : null, seed: seed ? copy(seed) : null };
    },
    // Checked and stored with no await between: no other call runs in the middle.
    async createDefaultWithSeed(seed, wallet) {
      const taken =
        defaultOf(wallet.app_id, wallet.user_id, wallet.wallet_type) ??
        seedOf(seed.app_id, seed.user_id) ??
        sameAddress(wallet);
      if (taken) return null;
      if (!userExists(seed.app_id, seed.user_id)) throw new LatchkeyError('user_not_found');
      seeds.set(seed.id, copy(seed));
      index.seedsByUser.set(indexKey(seed.app_id, seed.user_id), { id: seed.id });
      store({ ...wallet, is_default: true });
      return copy({ ...wallet, is_default: true });
    },
    async createDefaultIfAbsent(wallet) {
      const existing = defaultOf(wallet.app_id, wallet.user_id, wallet.wallet_type);
      if (existing) return { wallet: copy(existing), created: false };
      const taken = sameAddress(wallet);
      if (taken) return { wallet: copy(taken), created: false };
      if (!userExists(wallet.app_id, wallet.user_id)) throw new LatchkeyError('user_not_found');
      store({ ...wallet, is_default: true });
      return { wallet: copy({ ...wallet, is_default: true }), created: true };
    },
    async insert(wallet) {
      if (sameAddress(wallet)) return { inserted: false };
      store(wallet);
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
      const w = byIndex(index.walletAddresses, addressKey(appId, type, address));
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

export function memorySeedRepo(
  rows: Map<string, SeedRecord>,
  index: Pick<MemoryState['index'], 'seedsByUser'>,
  userExists: UserExists,
): SeedRepo {
  const ofUser = (appId: string, userId: string) => {
    const id = index.seedsByUser.get(indexKey(appId, userId))?.id;
    return id === undefined ? undefined : rows.get(id);
  };
  return {
    async insertIfAbsent(seed) {
      const existing = ofUser(seed.app_id, seed.user_id);
      if (existing) return copy(existing);
      if (!userExists(seed.app_id, seed.user_id)) throw new LatchkeyError('user_not_found');
      rows.set(seed.id, copy(seed));
      index.seedsByUser.set(indexKey(seed.app_id, seed.user_id), { id: seed.id });
      return copy(seed);
    },
    async get(appId, userId) {
      const s = ofUser(appId, userId);
      return s ? copy(s) : null;
    },
  };
}
