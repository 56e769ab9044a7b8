import type { RecoveryCodeRecord, TotpRecord, TotpRepo } from '@latchkey/core';
import { copy } from './state.js';

export function memoryTotpRepo(
  rows: Map<string, TotpRecord>,
  codes: Map<string, RecoveryCodeRecord>,
): TotpRepo {
  const owned = (appId: string, id: string) => {
    const row = rows.get(id);
    return row && row.app_id === appId ? row : undefined;
  };
  const ofUser = (appId: string, userId: string, status: TotpRecord['status']) =>
    [...rows.values()].find((r) => r.app_id === appId && r.user_id === userId && r.status === status);
  const dropCodes = (totpId: string) => {
    for (const [id, c] of codes) if (c.totp_id === totpId) codes.delete(id);
  };
  return {
    async createPending(totp, recoveryCodes) {
      if (ofUser(totp.app_id, totp.user_id, 'active')) return { created: false };
      for (const [id, r] of rows) {
        if (r.app_id === totp.app_id && r.user_id === totp.user_id && r.status === 'pending') {
          rows.delete(id);
          dropCodes(id);
        }
      }
      rows.set(totp.id, copy(totp));
      for (const c of recoveryCodes) codes.set(c.id, copy(c));
      return { created: true };
    },
    async get(appId, id) {
      const row = owned(appId, id);
      return row ? copy(row) : null;
    },
    async getForUser(appId, userId) {
      const row = ofUser(appId, userId, 'active') ?? ofUser(appId, userId, 'pending');
      return row ? copy(row) : null;
    },
    async activate(appId, id, now, step) {
      const row = owned(appId, id);
      if (row?.status !== 'pending' || row.expires_at <= now || ofUser(appId, row.user_id, 'active'))
        return null;
      Object.assign(row, { status: 'active', verified_at: now, last_used_step: step, failed_attempts: 0 });
      return copy(row);
    },
    async useStep(appId, id, step) {
      const row = owned(appId, id);
      if (!row || (row.last_used_step !== null && row.last_used_step >= step)) return false;
      row.last_used_step = step;
      row.failed_attempts = 0;
      return true;
    },
    async recordFailure(appId, id, now, maxFailures, lockSeconds) {
      const row = owned(appId, id);
      if (!row) return null;
      row.failed_attempts += 1;
      if (row.failed_attempts >= maxFailures) {
        row.failed_attempts = 0;
        row.locked_until = now + lockSeconds;
      }
      return copy(row);
    },
    async consumeRecoveryCode(appId, totpId, codeHash, now) {
      const code = [...codes.values()].find(
        (c) => c.app_id === appId && c.totp_id === totpId && c.code_hash === codeHash,
      );
      if (!code) return { ok: false, reason: 'not_found' };
      if (code.used_at !== null) return { ok: false, reason: 'used' };
      code.used_at = now;
      return { ok: true };
    },
    async delete(appId, id) {
      const row = owned(appId, id);
      if (!row) return null;
      rows.delete(id);
      dropCodes(id);
      return copy(row);
    },
  };
}
