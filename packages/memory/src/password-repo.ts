import type { PasswordRecord, PasswordRepo } from '@latchkey/core';
import { copy, indexKey } from './state.js';

// No await between reading and writing a row: each call is one atomic step here.
export function memoryPasswordRepo(rows: Map<string, PasswordRecord>): PasswordRepo {
  const row = (appId: string, userId: string) => rows.get(indexKey(appId, userId));
  return {
    async get(appId, userId) {
      const p = row(appId, userId);
      return p ? copy(p) : null;
    },
    async insert(p) {
      if (row(p.app_id, p.user_id)) return { inserted: false };
      rows.set(indexKey(p.app_id, p.user_id), copy(p));
      return { inserted: true };
    },
    async replace(appId, userId, hash, now) {
      const p = row(appId, userId);
      if (!p) return null;
      Object.assign(p, { hash, failed_attempts: 0, locked_until: null, updated_at: now });
      return copy(p);
    },
    async beginCheck(appId, userId, now, maxFailures, lockSeconds) {
      const p = row(appId, userId);
      if (!p) return null;
      if (p.locked_until !== null && p.locked_until > now)
        return { granted: false, locked_until: p.locked_until };
      const counted = (p.locked_until === null ? p.failed_attempts : 0) + 1;
      p.failed_attempts = counted;
      p.locked_until = counted >= maxFailures ? now + lockSeconds : null;
      return { granted: true, password: copy(p) };
    },
    async succeeded(appId, userId, now, rehash) {
      const p = row(appId, userId);
      if (!p) return;
      p.failed_attempts = 0;
      p.locked_until = null;
      if (rehash && p.hash === rehash.from) {
        p.hash = rehash.to;
        p.updated_at = now;
      }
    },
  };
}
