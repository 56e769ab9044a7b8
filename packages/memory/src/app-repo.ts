import type { AppRepo } from '@latchkey/core';
import { copy, type MemoryState } from './state.js';

export function memoryAppRepo(state: MemoryState): AppRepo {
  return {
    async insert(app) {
      state.apps.set(app.id, copy(app));
    },
    async get(appId) {
      const app = state.apps.get(appId);
      return app ? copy(app) : null;
    },
    async list() {
      return [...state.apps.values()].map(copy);
    },
    async findByKeyHash(keyHash, now) {
      for (const app of state.apps.values()) {
        if (app.secret_key_hash === keyHash) return { app: copy(app), kind: 'secret' };
        if (app.public_token_hash === keyHash) return { app: copy(app), kind: 'public' };
        if (
          app.previous_secret_key_hash === keyHash &&
          app.previous_secret_key_expires_at !== null &&
          app.previous_secret_key_expires_at > now
        ) {
          return { app: copy(app), kind: 'secret' };
        }
      }
      return null;
    },
    async update(appId, patch) {
      const app = state.apps.get(appId);
      if (!app) return null;
      const next = { ...app, ...copy(patch) };
      state.apps.set(appId, next);
      return copy(next);
    },
  };
}
