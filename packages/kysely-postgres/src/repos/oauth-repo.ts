import type { OAuthFlowRecord, OAuthLinkRecord, OAuthRepo, OAuthTaken } from '@latchkey/core';
import type { Selectable } from 'kysely';
import type { LatchkeyDb, OAuthFlowsTable, OAuthLinksTable } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';
import { definedOnly, toNullableSeconds, toSeconds } from './columns.js';

const toFlow = (row: Selectable<OAuthFlowsTable>): OAuthFlowRecord => ({
  id: row.id,
  app_id: row.app_id,
  provider_id: row.provider_id,
  state_hash: row.state_hash,
  nonce: row.nonce,
  code_verifier: row.code_verifier,
  client_code_challenge: row.client_code_challenge,
  login_redirect_url: row.login_redirect_url,
  signup_redirect_url: row.signup_redirect_url,
  link_user_id: row.link_user_id,
  state_expires_at: toSeconds(row.state_expires_at),
  state_used_at: toNullableSeconds(row.state_used_at),
  token_hash: row.token_hash,
  token_expires_at: toNullableSeconds(row.token_expires_at),
  token_used_at: toNullableSeconds(row.token_used_at),
  user_id: row.user_id,
  link_id: row.link_id,
  user_created: row.user_created,
  created_at: toSeconds(row.created_at),
});

const toLink = (row: Selectable<OAuthLinksTable>): OAuthLinkRecord => ({
  id: row.id,
  app_id: row.app_id,
  user_id: row.user_id,
  provider_id: row.provider_id,
  issuer: row.issuer,
  subject: row.subject,
  email: row.email,
  email_verified: row.email_verified,
  provider_tokens_sealed: row.provider_tokens_sealed,
  created_at: toSeconds(row.created_at),
  updated_at: toSeconds(row.updated_at),
});

// Named columns, not `*`: a prepared statement's result must keep its shape when a later
// migration adds a column while the process runs.
const FLOW_COLUMNS = [
  'id',
  'app_id',
  'provider_id',
  'state_hash',
  'nonce',
  'code_verifier',
  'client_code_challenge',
  'login_redirect_url',
  'signup_redirect_url',
  'link_user_id',
  'state_expires_at',
  'state_used_at',
  'token_hash',
  'token_expires_at',
  'token_used_at',
  'user_id',
  'link_id',
  'user_created',
  'created_at',
] as const satisfies ReadonlyArray<keyof OAuthFlowsTable>;

const LINK_COLUMNS = [
  'id',
  'app_id',
  'user_id',
  'provider_id',
  'issuer',
  'subject',
  'email',
  'email_verified',
  'provider_tokens_sealed',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof OAuthLinksTable>;

// One UPDATE: a concurrent caller waits on the row lock, then re-checks the WHERE against the
// version the winner wrote, so exactly one gets the row.
export const spendToken = defineStatement((db, [now, appId, tokenHash]: [number, string, string]) =>
  db
    .updateTable('oauth_flows')
    .set({ token_used_at: now })
    .where('app_id', '=', appId)
    .where('token_hash', '=', tokenHash)
    .where('token_used_at', 'is', null)
    .where('token_expires_at', '>', now)
    .returning(FLOW_COLUMNS),
);

export const tokenUse = defineStatement((db, [appId, tokenHash]: [string, string]) =>
  db
    .selectFrom('oauth_flows')
    .select('token_used_at')
    .where('app_id', '=', appId)
    .where('token_hash', '=', tokenHash),
);

export const linkById = defineStatement((db, [appId, linkId]: [string, string]) =>
  db.selectFrom('oauth_links').select(LINK_COLUMNS).where('app_id', '=', appId).where('id', '=', linkId),
);

/** Why a spend's UPDATE matched nothing, from the row as it now is (`undefined`: no such row). */
const refusal = (usedAt: string | number | bigint | null | undefined): OAuthTaken =>
  usedAt === undefined
    ? { ok: false, reason: 'not_found' }
    : { ok: false, reason: usedAt === null ? 'expired' : 'used' };

export function kyselyOAuthRepo(db: LatchkeyDb, statements: Statements): OAuthRepo {
  const links = db.selectFrom('oauth_links').selectAll();
  const flows = db.selectFrom('oauth_flows');
  const getLink = async (appId: string, linkId: string) => {
    const [row] = await statements.run(linkById, [appId, linkId]);
    return row ? toLink(row) : null;
  };

  return {
    async insertFlow(f) {
      await db
        .insertInto('oauth_flows')
        .values({
          id: f.id,
          app_id: f.app_id,
          provider_id: f.provider_id,
          state_hash: f.state_hash,
          nonce: f.nonce,
          code_verifier: f.code_verifier,
          client_code_challenge: f.client_code_challenge,
          login_redirect_url: f.login_redirect_url,
          signup_redirect_url: f.signup_redirect_url,
          link_user_id: f.link_user_id,
          state_expires_at: f.state_expires_at,
          state_used_at: f.state_used_at,
          token_hash: f.token_hash,
          token_expires_at: f.token_expires_at,
          token_used_at: f.token_used_at,
          user_id: f.user_id,
          link_id: f.link_id,
          user_created: f.user_created,
          created_at: f.created_at,
        })
        .execute();
    },

    async takeState(stateHash, now) {
      // One UPDATE: a concurrent caller waits on the row lock, then re-checks the WHERE against
      // the version the winner wrote, so exactly one gets the row. The read after only says why.
      const row = await db
        .updateTable('oauth_flows')
        .set({ state_used_at: now })
        .where('state_hash', '=', stateHash)
        .where('state_used_at', 'is', null)
        .where('state_expires_at', '>', now)
        .returningAll()
        .executeTakeFirst();
      if (row) return { ok: true, flow: toFlow(row) };
      const found = await flows
        .select('state_used_at')
        .where('state_hash', '=', stateHash)
        .executeTakeFirst();
      return refusal(found?.state_used_at);
    },

    async finishFlow(appId, flowId, r) {
      await db
        .updateTable('oauth_flows')
        .set({
          token_hash: r.token_hash,
          token_expires_at: r.token_expires_at,
          user_id: r.user_id,
          link_id: r.link_id,
          user_created: r.user_created,
        })
        .where('app_id', '=', appId)
        .where('id', '=', flowId)
        .execute();
    },

    async takeToken(appId, tokenHash, now) {
      // As takeState, within the App. The read after only says why.
      const [row] = await statements.run(spendToken, [now, appId, tokenHash]);
      if (row) return { ok: true, flow: toFlow(row) };
      const [found] = await statements.run(tokenUse, [appId, tokenHash]);
      return refusal(found?.token_used_at);
    },

    async findLink(appId, issuer, subject) {
      const row = await links
        .where('app_id', '=', appId)
        .where('issuer', '=', issuer)
        .where('subject', '=', subject)
        .executeTakeFirst();
      return row ? toLink(row) : null;
    },

    getLink,

    async listLinks(appId, userId) {
      const rows = await links
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toLink);
    },

    async insertLink(l) {
      // The unique (app_id, issuer, subject) decides a race: the loser waits for the winner's
      // commit, writes nothing, and reads the winner's row. Should that row be deleted in between
      // (a concurrent unlink), the insert is tried again.
      for (let round = 1; ; round++) {
        const inserted = await db
          .insertInto('oauth_links')
          .values({
            id: l.id,
            app_id: l.app_id,
            user_id: l.user_id,
            provider_id: l.provider_id,
            issuer: l.issuer,
            subject: l.subject,
            email: l.email,
            email_verified: l.email_verified,
            provider_tokens_sealed: l.provider_tokens_sealed,
            created_at: l.created_at,
            updated_at: l.updated_at,
          })
          .onConflict((oc) => oc.columns(['app_id', 'issuer', 'subject']).doNothing())
          .returningAll()
          .executeTakeFirst();
        if (inserted) return { inserted: true, link: toLink(inserted) };
        const existing = await links
          .where('app_id', '=', l.app_id)
          .where('issuer', '=', l.issuer)
          .where('subject', '=', l.subject)
          .executeTakeFirst();
        if (existing) return { inserted: false, link: toLink(existing) };
        if (round === 3) throw new Error('oauth_links: the conflicting link kept disappearing');
      }
    },

    async updateLink(appId, linkId, update) {
      const patch = definedOnly(update);
      if (Object.keys(patch).length === 0) return getLink(appId, linkId);
      const row = await db
        .updateTable('oauth_links')
        .set(patch)
        .where('app_id', '=', appId)
        .where('id', '=', linkId)
        .returningAll()
        .executeTakeFirst();
      return row ? toLink(row) : null;
    },

    async deleteLink(appId, linkId) {
      const row = await db
        .deleteFrom('oauth_links')
        .where('app_id', '=', appId)
        .where('id', '=', linkId)
        .returningAll()
        .executeTakeFirst();
      return row ? toLink(row) : null;
    },
  };
}
