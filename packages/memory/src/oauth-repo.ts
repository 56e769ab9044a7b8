import type { OAuthFlowRecord, OAuthLinkRecord, OAuthRepo, OAuthTaken } from '@latchkey/core';
import { copy } from './state.js';

/** Spends the found flow's state or token once: the first of used and expired that holds, else ok. */
function take(
  flow: OAuthFlowRecord | undefined,
  usedAt: 'state_used_at' | 'token_used_at',
  expiresAt: number | null,
  now: number,
): OAuthTaken {
  if (!flow) return { ok: false, reason: 'not_found' };
  if (flow[usedAt] !== null) return { ok: false, reason: 'used' };
  if (expiresAt === null || expiresAt <= now) return { ok: false, reason: 'expired' };
  flow[usedAt] = now;
  return { ok: true, flow: copy(flow) };
}

// No await between reading and writing a row: each call is one atomic step here.
export function memoryOAuthRepo(
  flows: Map<string, OAuthFlowRecord>,
  links: Map<string, OAuthLinkRecord>,
): OAuthRepo {
  const ownedLink = (appId: string, id: string) => {
    const row = links.get(id);
    return row && row.app_id === appId ? row : undefined;
  };
  const byIdentity = (appId: string, issuer: string, subject: string) =>
    [...links.values()].find((l) => l.app_id === appId && l.issuer === issuer && l.subject === subject);

  return {
    async insertFlow(flow) {
      flows.set(flow.id, copy(flow));
    },
    async takeState(stateHash, now) {
      const flow = [...flows.values()].find((f) => f.state_hash === stateHash);
      return take(flow, 'state_used_at', flow?.state_expires_at ?? null, now);
    },
    async finishFlow(appId, flowId, result) {
      const flow = flows.get(flowId);
      if (flow?.app_id !== appId) return;
      const { token_hash, token_expires_at, user_id, link_id, user_created } = result;
      Object.assign(flow, { token_hash, token_expires_at, user_id, link_id, user_created });
    },
    async takeToken(appId, tokenHash, now) {
      const flow = [...flows.values()].find((f) => f.app_id === appId && f.token_hash === tokenHash);
      return take(flow, 'token_used_at', flow?.token_expires_at ?? null, now);
    },

    async findLink(appId, issuer, subject) {
      const row = byIdentity(appId, issuer, subject);
      return row ? copy(row) : null;
    },
    async getLink(appId, linkId) {
      const row = ownedLink(appId, linkId);
      return row ? copy(row) : null;
    },
    async listLinks(appId, userId) {
      return (
        [...links.values()]
          .filter((l) => l.app_id === appId && l.user_id === userId)
          // Oldest first, as Postgres orders them.
          .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1))
          .map(copy)
      );
    },
    async insertLink(link) {
      const existing = byIdentity(link.app_id, link.issuer, link.subject);
      if (existing) return { inserted: false, link: copy(existing) };
      links.set(link.id, copy(link));
      return { inserted: true, link: copy(link) };
    },
    async updateLink(appId, linkId, update) {
      const row = ownedLink(appId, linkId);
      if (!row) return null;
      for (const [key, value] of Object.entries(update))
        if (value !== undefined) Object.assign(row, { [key]: value });
      return copy(row);
    },
    async deleteLink(appId, linkId) {
      const row = ownedLink(appId, linkId);
      if (!row) return null;
      links.delete(linkId);
      return copy(row);
    },
  };
}
