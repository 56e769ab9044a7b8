import type { WalletChallengeRecord, WalletChallengeRepo } from '@latchkey/core';
import { copy } from './state.js';

export function memoryWalletChallengeRepo(rows: Map<string, WalletChallengeRecord>): WalletChallengeRepo {
  return {
    async insert(challenge) {
      rows.set(challenge.id, copy(challenge));
    },
    async consume(appId, nonce, now) {
      const row = [...rows.values()].find((c) => c.app_id === appId && c.nonce === nonce);
      if (!row) return { ok: false, reason: 'not_found' };
      if (row.used_at !== null) return { ok: false, reason: 'used' };
      if (row.expires_at <= now) return { ok: false, reason: 'expired' };
      row.used_at = now;
      return { ok: true, challenge: copy(row) };
    },
    async get(appId, nonce) {
      const row = [...rows.values()].find((c) => c.app_id === appId && c.nonce === nonce);
      return row ? copy(row) : null;
    },
    async latest(appId, walletType, address) {
      let found: WalletChallengeRecord | undefined;
      for (const c of rows.values()) {
        if (c.app_id !== appId || c.wallet_type !== walletType || c.public_address !== address) continue;
        if (
          !found ||
          c.created_at > found.created_at ||
          (c.created_at === found.created_at && c.id > found.id)
        )
          found = c;
      }
      return found ? copy(found) : null;
    },
    async deleteExpired(appId, before) {
      for (const [id, c] of rows) if (c.app_id === appId && c.expires_at < before) rows.delete(id);
    },
  };
}
