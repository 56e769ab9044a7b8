import type { MagicLinkRecord, MagicLinkRepo } from '@latchkey/core';
import { copy } from './state.js';

export function memoryMagicLinkRepo(rows: Map<string, MagicLinkRecord>): MagicLinkRepo {
  return {
    async insert(link) {
      rows.set(link.id, copy(link));
    },
    async consume(appId, tokenHash, now) {
      const row = [...rows.values()].find((r) => r.app_id === appId && r.token_hash === tokenHash);
      if (!row) return { ok: false, reason: 'not_found' };
      if (row.used_at !== null) return { ok: false, reason: 'used' };
      if (row.expires_at <= now) return { ok: false, reason: 'expired' };
      row.used_at = now;
      return { ok: true, link: copy(row) };
    },
    async deleteByEmail(appId, emailId) {
      for (const [id, row] of rows) if (row.app_id === appId && row.email_id === emailId) rows.delete(id);
    },
  };
}
