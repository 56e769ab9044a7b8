import {
  REVOCATION_RETENTION_SECONDS,
  type RevocationChannel,
  type RevocationListener,
  type SessionRecord,
  type SessionRepo,
  type SessionRevocation,
  type SigningKeyRecord,
  type SigningKeyRepo,
} from '@latchkey/core';
import { copy } from './state.js';

/**
 * Revocations as they are written, to every Latchkey sharing this storage: the memory storage's
 * own channel (one process, so nothing can be missed and nothing needs publishing).
 */
export function memoryRevocationChannel() {
  const listeners = new Set<RevocationListener>();
  const channel: RevocationChannel = {
    async subscribe(listener) {
      listeners.add(listener);
      return {
        close: async () => {
          listeners.delete(listener);
        },
      };
    },
  };
  const announce = (revocations: SessionRevocation[]) => {
    if (revocations.length === 0) return;
    for (const listener of listeners) listener.revoked(revocations);
  };
  return { channel, announce };
}

export function memorySessionRepo(
  rows: Map<string, SessionRecord>,
  log: Map<string, SessionRevocation>,
  announce: (revocations: SessionRevocation[]) => void,
): SessionRepo {
  const record = (revoked: SessionRecord[]) => {
    const entries = revoked.map((s) => ({
      app_id: s.app_id,
      session_id: s.id,
      revoked_at: s.revoked_at as number,
    }));
    for (const entry of entries) log.set(entry.session_id, entry);
    // The record need hold no revocation older than a JWT can live.
    const oldest = (entries[0]?.revoked_at ?? 0) - REVOCATION_RETENTION_SECONDS;
    for (const [id, entry] of log) if (entry.revoked_at < oldest) log.delete(id);
    announce(entries);
  };
  const owned = (appId: string, id: string) => {
    const row = rows.get(id);
    return row && row.app_id === appId ? row : undefined;
  };
  return {
    async insert(session) {
      rows.set(session.id, copy(session));
    },
    async get(appId, id) {
      const row = owned(appId, id);
      return row ? copy(row) : null;
    },
    async findByTokenHash(appId, tokenHash) {
      const row = [...rows.values()].find((r) => r.app_id === appId && r.token_hash === tokenHash);
      return row ? copy(row) : null;
    },
    async appIdByTokenHash(tokenHash) {
      const apps = [...rows.values()].filter((r) => r.token_hash === tokenHash).map((r) => r.app_id);
      return apps.length === 1 ? apps[0]! : null;
    },
    async touch(appId, id, now, change) {
      const row = owned(appId, id);
      if (!row || row.revoked_at !== null || row.expires_at <= now) return null;
      if (change.expiresAt !== undefined) row.expires_at = Math.max(row.expires_at, change.expiresAt);
      if (change.factor) {
        const { type, method } = change.factor;
        row.factors = [
          ...row.factors.filter((f) => f.type !== type || f.method.method_id !== method.method_id),
          copy(change.factor),
        ];
      }
      row.last_active_at = now;
      row.updated_at = now;
      return copy(row);
    },
    async revoke(appId, id, now) {
      const row = owned(appId, id);
      if (!row || row.revoked_at !== null) return null;
      row.revoked_at = now;
      row.updated_at = now;
      record([row]);
      return copy(row);
    },
    async revokeByUser(appId, userId, now, exceptId) {
      const revoked: SessionRecord[] = [];
      for (const row of rows.values()) {
        if (row.app_id !== appId || row.user_id !== userId || row.revoked_at !== null || row.id === exceptId)
          continue;
        row.revoked_at = now;
        row.updated_at = now;
        revoked.push(copy(row));
      }
      record(revoked);
      return revoked;
    },
    async revokeByOrganization(appId, organizationId, now, userId) {
      const revoked: SessionRecord[] = [];
      for (const row of rows.values()) {
        if (row.app_id !== appId || (row.organization_id ?? null) !== organizationId) continue;
        if (row.revoked_at !== null || (userId !== undefined && row.user_id !== userId)) continue;
        row.revoked_at = now;
        row.updated_at = now;
        revoked.push(copy(row));
      }
      record(revoked);
      return revoked;
    },
    async revokedSince(since, appId) {
      return [...log.values()]
        .filter((r) => r.revoked_at >= since && (appId === undefined || r.app_id === appId))
        .sort((a, b) => a.revoked_at - b.revoked_at)
        .map(copy);
    },
    async listLiveByUser(appId, userId, now) {
      return [...rows.values()]
        .filter(
          (r) => r.app_id === appId && r.user_id === userId && r.revoked_at === null && r.expires_at > now,
        )
        .sort((a, b) => b.last_active_at - a.last_active_at || (a.id < b.id ? -1 : 1))
        .map(copy);
    },
  };
}

export function memorySigningKeyRepo(rows: Map<string, SigningKeyRecord>): SigningKeyRepo {
  const active = (appId: string) =>
    [...rows.values()].find((r) => r.app_id === appId && r.retired_at === null);
  return {
    async insertIfNoActive(key) {
      const existing = active(key.app_id);
      if (existing) return copy(existing);
      rows.set(key.id, copy(key));
      return copy(key);
    },
    async getActive(appId) {
      const row = active(appId);
      return row ? copy(row) : null;
    },
    async list(appId) {
      return [...rows.values()]
        .filter((r) => r.app_id === appId)
        .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1))
        .map(copy);
    },
    async retireActive(appId, now) {
      const row = active(appId);
      if (row) row.retired_at = now;
    },
  };
}
