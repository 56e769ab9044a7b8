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
      Object.assign(row, {
        status: 'active',
        verified_at: now,
        last_used_step: step,
        failed_attempts: 0,
        locked_until: null,
      });
      return copy(row);
    },
    async useStep(appId, id, step) {
      const row = owned(appId, id);
      if (!row || (row.last_used_step !== null && row.last_used_step >= step)) return false;
      Object.assign(row, { last_used_step: step, failed_attempts: 0, locked_until: null });
      return true;
    },
    // No await between reading and writing the row: each call is one atomic step here.
    async beginCodeCheck(appId, id, now, maxFailures, lockSeconds) {
      const row = owned(appId, id);
      if (!row) return null;
      if (row.locked_until !== null && row.locked_until > now)
        return { granted: false, locked_until: row.locked_until };
      const counted = (row.locked_until === null ? row.failed_attempts : 0) + 1;
      row.failed_attempts = counted;
      row.locked_until = counted >= maxFailures ? now + lockSeconds : null;
      return { granted: true, totp: copy(row) };
    },
    async consumeRecoveryCode(appId, totpId, codeHash, now, maxFailures, lockSeconds) {
      const row = owned(appId, totpId);
      if (!row) return { ok: false, reason: 'not_found', locked_until: null };
      if (row.recovery_locked_until !== null && row.recovery_locked_until > now)
        return { ok: false, reason: 'locked', locked_until: row.recovery_locked_until };
      const code = [...codes.values()].find(
        (c) => c.app_id === appId && c.totp_id === totpId && c.code_hash === codeHash,
      );
      if (code?.used_at != null) return { ok: false, reason: 'used' };
      if (code) {
        code.used_at = now;
        Object.assign(row, {
          failed_attempts: 0,
          locked_until: null,
          recovery_failed_attempts: 0,
          recovery_locked_until: null,
        });
        return { ok: true };
      }
      const counted = (row.recovery_locked_until === null ? row.recovery_failed_attempts : 0) + 1;
      row.recovery_failed_attempts = counted;
      row.recovery_locked_until = counted >= maxFailures ? now + lockSeconds : null;
      return { ok: false, reason: 'not_found', locked_until: row.recovery_locked_until };
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
