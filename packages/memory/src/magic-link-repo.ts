import { type MagicLinkRecord, type MagicLinkRepo, meetsDeviceRequirement } from '@latchkey/core';
import { copy } from './state.js';

export function memoryMagicLinkRepo(rows: Map<string, MagicLinkRecord>): MagicLinkRepo {
  return {
    async insert(link) {
      rows.set(link.id, copy(link));
    },
    async consume(appId, tokenHash, now, maxAttempts, device) {
      const row = [...rows.values()].find((r) => r.app_id === appId && r.token_hash === tokenHash);
      if (!row) return { ok: false, reason: 'not_found' };
      if (row.used_at !== null) return { ok: false, reason: 'used' };
      if (row.attempts >= maxAttempts) return { ok: false, reason: 'too_many_attempts' };
      if (row.expires_at <= now) return { ok: false, reason: 'expired' };
      if (!meetsDeviceRequirement(device, row.device_fingerprint)) {
        row.attempts += 1;
        return { ok: false, reason: 'device_mismatch' };
      }
      row.used_at = now;
      return { ok: true, link: copy(row) };
    },
    async deleteByEmail(appId, emailId) {
      for (const [id, row] of rows) if (row.app_id === appId && row.email_id === emailId) rows.delete(id);
    },
  };
}
