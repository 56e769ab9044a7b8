import { meetsDeviceRequirement, type OtpRecord, type OtpRepo, timingSafeEqual } from '@latchkey/core';
import { copy } from './state.js';

export function memoryOtpRepo(rows: Map<string, OtpRecord>): OtpRepo {
  const forMethod = (appId: string, methodId: string) =>
    [...rows.values()].find((r) => r.app_id === appId && r.method_id === methodId);
  const sameHash = (a: string, b: string) => timingSafeEqual(Buffer.from(a), Buffer.from(b));
  return {
    async replace(otp) {
      for (const [id, row] of rows)
        if (row.app_id === otp.app_id && row.method_id === otp.method_id) rows.delete(id);
      rows.set(otp.id, copy(otp));
    },
    async consume(appId, methodId, codeHash, now, maxAttempts, device) {
      const row = forMethod(appId, methodId);
      if (!row) return { ok: false, reason: 'not_found' };
      if (row.used_at !== null) return { ok: false, reason: 'used' };
      if (row.attempts >= maxAttempts) return { ok: false, reason: 'too_many_attempts' };
      if (row.expires_at <= now) return { ok: false, reason: 'expired' };
      if (!sameHash(row.code_hash, codeHash)) {
        row.attempts += 1;
        return { ok: false, reason: 'mismatch' };
      }
      if (!meetsDeviceRequirement(device, row.device_fingerprint)) {
        row.attempts += 1;
        return { ok: false, reason: 'device_mismatch' };
      }
      row.used_at = now;
      return { ok: true, otp: copy(row) };
    },
    async get(appId, methodId) {
      const row = forMethod(appId, methodId);
      return row ? copy(row) : null;
    },
    async deleteByMethod(appId, methodId) {
      for (const [id, row] of rows) if (row.app_id === appId && row.method_id === methodId) rows.delete(id);
    },
  };
}
