import type { EventRecord, OAuthFlowRecord, OAuthLinkRecord, OAuthRepo, OAuthTaken } from '@latchkey/core';
import type { Selectable } from 'kysely';
import type { LatchkeyDb, OAuthFlowsTable, OAuthLinksTable } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';
import { definedOnly, toNullableSeconds, toSeconds } from './columns.js';
import { writeWithEvents } from './event-repo.js';

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

// The OAuth sign-in's statements (start, callback, authenticate), compiled once
// (prepared-statements.ts).

type FlowValues = [
  id: string,
  appId: string,
  providerId: string,
  stateHash: string,
  nonce: string | null,
  codeVerifier: string,
  clientCodeChallenge: string | null,
  loginRedirectUrl: string,
  signupRedirectUrl: string,
  linkUserId: string | null,
  stateExpiresAt: number,
  stateUsedAt: number | null,
  tokenHash: string | null,
  tokenExpiresAt: number | null,
  tokenUsedAt: number | null,
  userId: string | null,
  linkId: string | null,
  userCreated: boolean,
  createdAt: number,
];

export const insertFlow = defineStatement((db, v: FlowValues) =>
  db.insertInto('oauth_flows').values({
    id: v[0],
    app_id: v[1],
    provider_id: v[2],
    state_hash: v[3],
    nonce: v[4],
    code_verifier: v[5],
    client_code_challenge: v[6],
    login_redirect_url: v[7],
    signup_redirect_url: v[8],
    link_user_id: v[9],
    state_expires_at: v[10],
    state_used_at: v[11],
    token_hash: v[12],
    token_expires_at: v[13],
    token_used_at: v[14],
    user_id: v[15],
    link_id: v[16],
    user_created: v[17],
    created_at: v[18],
  }),
);

// One UPDATE: a concurrent caller waits on the row lock, then re-checks the WHERE against the
// version the winner wrote, so exactly one gets the row. The read after only says why not.
export const spendState = defineStatement((db, [now, stateHash]: [number, string]) =>
  db
    .updateTable('oauth_flows')
    .set({ state_used_at: now })
    .where('state_hash', '=', stateHash)
    .where('state_used_at', 'is', null)
    .where('state_expires_at', '>', now)
    .returning(FLOW_COLUMNS),
);

export const stateUse = defineStatement((db, [stateHash]: [string]) =>
  db.selectFrom('oauth_flows').select('state_used_at').where('state_hash', '=', stateHash),
);

export const finishFlow = defineStatement(
  (
    db,
    [tokenHash, tokenExpiresAt, userId, linkId, userCreated, appId, flowId]: [
      string,
      number,
      string,
      string,
      boolean,
      string,
      string,
    ],
  ) =>
    db
      .updateTable('oauth_flows')
      .set({
        token_hash: tokenHash,
        token_expires_at: tokenExpiresAt,
        user_id: userId,
        link_id: linkId,
        user_created: userCreated,
      })
      .where('app_id', '=', appId)
      .where('id', '=', flowId),
);

export const linkByIdentity = defineStatement((db, [appId, issuer, subject]: [string, string, string]) =>
  db
    .selectFrom('oauth_links')
    .select(LINK_COLUMNS)
    .where('app_id', '=', appId)
    .where('issuer', '=', issuer)
    .where('subject', '=', subject),
);

// As spendState, within the App.
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

/** A user's links, oldest first: read with the user on every users/get, so prepared. */
export const linksOfUser = defineStatement((db, [appId, userId]: [string, string]) =>
  db
    .selectFrom('oauth_links')
    .select(LINK_COLUMNS)
    .where('app_id', '=', appId)
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id'),
);

/** Why a spend's UPDATE matched nothing, from the row as it now is (`undefined`: no such row). */
const refusal = (usedAt: string | number | bigint | null | undefined): OAuthTaken =>
  usedAt === undefined
    ? { ok: false, reason: 'not_found' }
    : { ok: false, reason: usedAt === null ? 'expired' : 'used' };

export function kyselyOAuthRepo(db: LatchkeyDb, statements: Statements): OAuthRepo {
  const getLink = async (appId: string, linkId: string) => {
    const [row] = await statements.run(linkById, [appId, linkId]);
    return row ? toLink(row) : null;
  };
  /**
   * The unique (app_id, issuer, subject) decides a race: the loser waits for the winner's commit,
   * writes nothing (nor `events`), and reads the winner's row. Should that row be deleted in
   * between (a concurrent unlink), the insert is tried again.
   */
  const insertLink = async (l: OAuthLinkRecord, events: EventRecord[]) => {
    const write = db
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
      .returning(LINK_COLUMNS);
    for (let round = 1; ; round++) {
      const [inserted] = await writeWithEvents(db, write, events);
      if (inserted) return { inserted: true, link: toLink(inserted) };
      const [existing] = await statements.run(linkByIdentity, [l.app_id, l.issuer, l.subject]);
      if (existing) return { inserted: false, link: toLink(existing) };
      if (round === 3) throw new Error('oauth_links: the conflicting link kept disappearing');
    }
  };

  return {
    async insertFlow(f) {
      await statements.run(insertFlow, [
        f.id,
        f.app_id,
        f.provider_id,
        f.state_hash,
        f.nonce,
        f.code_verifier,
        f.client_code_challenge,
        f.login_redirect_url,
        f.signup_redirect_url,
        f.link_user_id,
        f.state_expires_at,
        f.state_used_at,
        f.token_hash,
        f.token_expires_at,
        f.token_used_at,
        f.user_id,
        f.link_id,
        f.user_created,
        f.created_at,
      ]);
    },

    async takeState(stateHash, now) {
      const [row] = await statements.run(spendState, [now, stateHash]);
      if (row) return { ok: true, flow: toFlow(row) };
      const [found] = await statements.run(stateUse, [stateHash]);
      return refusal(found?.state_used_at);
    },

    async finishFlow(appId, flowId, r) {
      await statements.run(finishFlow, [
        r.token_hash,
        r.token_expires_at,
        r.user_id,
        r.link_id,
        r.user_created,
        appId,
        flowId,
      ]);
    },

    async takeToken(appId, tokenHash, now) {
      // As takeState, within the App. The read after only says why.
      const [row] = await statements.run(spendToken, [now, appId, tokenHash]);
      if (row) return { ok: true, flow: toFlow(row) };
      const [found] = await statements.run(tokenUse, [appId, tokenHash]);
      return refusal(found?.token_used_at);
    },

    async findLink(appId, issuer, subject) {
      const [row] = await statements.run(linkByIdentity, [appId, issuer, subject]);
      return row ? toLink(row) : null;
    },

    getLink,

    async listLinks(appId, userId) {
      const rows = await statements.run(linksOfUser, [appId, userId]);
      return rows.map(toLink);
    },

    insertLink: (l) => insertLink(l, []),

    insertLinkWithEvents: insertLink,

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
