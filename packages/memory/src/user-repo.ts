import type { ContactRecord, ContactRepo, UserRepo } from '@latchkey/core';
import { copy, type MemoryState } from './state.js';

/** Users without `getWithMethods`, which memoryStorage adds over the other repos. */
export function memoryUserRepo(state: MemoryState): Omit<UserRepo, 'getWithMethods'> {
  const owned = (appId: string, id: string) => {
    const user = state.users.get(id);
    return user && user.app_id === appId ? user : undefined;
  };
  return {
    async insert(user) {
      state.users.set(user.id, copy(user));
    },
    async get(appId, userId) {
      const user = owned(appId, userId);
      return user ? copy(user) : null;
    },
    async update(appId, userId, patch) {
      const user = owned(appId, userId);
      if (!user) return null;
      const next = { ...user, ...copy(patch) };
      state.users.set(userId, next);
      return copy(next);
    },
  };
}

export function memoryContactRepo(rows: Map<string, ContactRecord>): ContactRepo {
  const owned = (appId: string, id: string) => {
    const row = rows.get(id);
    return row && row.app_id === appId ? row : undefined;
  };
  const byAddress = (appId: string, address: string) =>
    [...rows.values()].find((r) => r.app_id === appId && r.address === address);
  return {
    async insert(contact) {
      if (byAddress(contact.app_id, contact.address)) return { inserted: false };
      rows.set(contact.id, copy(contact));
      return { inserted: true };
    },
    async get(appId, id) {
      const row = owned(appId, id);
      return row ? copy(row) : null;
    },
    async findByAddress(appId, address) {
      const row = byAddress(appId, address);
      return row ? copy(row) : null;
    },
    async listByUser(appId, userId) {
      return (
        [...rows.values()]
          .filter((r) => r.app_id === appId && r.user_id === userId)
          // Oldest first, as Postgres orders them.
          .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1))
          .map(copy)
      );
    },
    async markVerified(appId, id, at) {
      const row = owned(appId, id);
      if (!row) return null;
      const next = { ...row, verified_at: at };
      rows.set(id, next);
      return copy(next);
    },
    async delete(appId, id) {
      const row = owned(appId, id);
      if (!row) return null;
      rows.delete(id);
      return copy(row);
    },
  };
}
