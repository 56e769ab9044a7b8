import type { WebAuthnChallengeRecord, WebAuthnCredentialRecord, WebAuthnRepo } from '@latchkey/core';
import { copy } from './state.js';

export function memoryWebAuthnRepo(
  credentials: Map<string, WebAuthnCredentialRecord>,
  challenges: Map<string, WebAuthnChallengeRecord>,
): WebAuthnRepo {
  const owned = (appId: string, id: string) => {
    const row = credentials.get(id);
    return row && row.app_id === appId ? row : undefined;
  };
  const byCredentialId = (appId: string, credentialId: string) =>
    [...credentials.values()].find((c) => c.app_id === appId && c.credential_id === credentialId);

  return {
    async insertChallenge(challenge) {
      challenges.set(challenge.id, copy(challenge));
    },
    async consumeChallenge(appId, challengeHash, ceremony, now) {
      const row = [...challenges.values()].find(
        (c) => c.app_id === appId && c.challenge_hash === challengeHash && c.ceremony === ceremony,
      );
      if (!row) return { ok: false, reason: 'not_found' };
      if (row.used_at !== null) return { ok: false, reason: 'used' };
      if (row.expires_at <= now) return { ok: false, reason: 'expired' };
      row.used_at = now;
      return { ok: true, challenge: copy(row) };
    },
    async deleteExpiredChallenges(appId, before) {
      for (const [id, c] of challenges)
        if (c.app_id === appId && c.expires_at < before) challenges.delete(id);
    },
    async insertCredential(credential) {
      if (byCredentialId(credential.app_id, credential.credential_id)) return { inserted: false };
      credentials.set(credential.id, copy(credential));
      return { inserted: true };
    },
    async get(appId, id) {
      const row = owned(appId, id);
      return row ? copy(row) : null;
    },
    async findByCredentialId(appId, credentialId) {
      const row = byCredentialId(appId, credentialId);
      return row ? copy(row) : null;
    },
    async listByUser(appId, userId) {
      return [...credentials.values()]
        .filter((c) => c.app_id === appId && c.user_id === userId)
        .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1))
        .map(copy);
    },
    async recordUse(appId, id, signCount, now) {
      const row = owned(appId, id);
      if (!row) return 'not_found';
      if (!(signCount > row.sign_count || (signCount === 0 && row.sign_count === 0)))
        return 'counter_regression';
      row.sign_count = signCount;
      row.last_used_at = now;
      return 'ok';
    },
    async delete(appId, id) {
      const row = owned(appId, id);
      if (!row) return null;
      credentials.delete(id);
      return copy(row);
    },
  };
}
