import {
  createLatchkey,
  defaultCapabilities,
  defineCapability,
  type OAuthFlowRecord,
  type OAuthFlowResult,
  type OAuthLinkRecord,
  type Storage,
} from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { appWithUser, makeUser, NOW, uid } from './fixtures.js';

export function makeOAuthFlow(appId: string, over: Partial<OAuthFlowRecord> = {}): OAuthFlowRecord {
  return {
    id: uid('oauthflow'),
    app_id: appId,
    provider_id: 'google',
    state_hash: uid('statehash'),
    nonce: uid('nonce'),
    code_verifier: uid('verifier'),
    client_code_challenge: null,
    login_redirect_url: 'https://example.com/auth',
    signup_redirect_url: 'https://example.com/welcome',
    link_user_id: null,
    state_expires_at: NOW + 600,
    state_used_at: null,
    token_hash: null,
    token_expires_at: null,
    token_used_at: null,
    user_id: null,
    link_id: null,
    user_created: false,
    created_at: NOW,
    ...over,
  };
}

export function makeOAuthLink(
  appId: string,
  userId: string,
  over: Partial<OAuthLinkRecord> = {},
): OAuthLinkRecord {
  return {
    id: uid('oauthlink'),
    app_id: appId,
    user_id: userId,
    provider_id: 'google',
    issuer: 'https://accounts.google.com',
    subject: uid('sub'),
    email: 'ada@example.com',
    email_verified: true,
    provider_tokens_sealed: null,
    created_at: NOW,
    updated_at: NOW,
    ...over,
  };
}

const result = (userId: string, over: Partial<OAuthFlowResult> = {}): OAuthFlowResult => ({
  token_hash: uid('tokenhash'),
  token_expires_at: NOW + 120,
  user_id: userId,
  link_id: uid('oauthlink'),
  user_created: true,
  ...over,
});

/**
 * OAuth sign-in: a flow's state spent once across all Apps, its Latchkey token once within its
 * App, each refusal's reason in the order the repo documents (not_found, used, expired); links
 * one per (App, issuer, subject) however many inserts race, each App seeing only its own; and
 * the events a link and an unlink imply, written once.
 */
export function oauthRepoCases(storage: () => Storage, parallelism = 1): void {
  const setup = () => appWithUser(storage());
  const racers = Math.max(20, parallelism * 2);

  /** A flow whose callback has run: its state spent and its token recorded. */
  const finished = async (over: Partial<OAuthFlowResult> = {}) => {
    const { s, app, user } = await setup();
    const flow = makeOAuthFlow(app.id);
    await s.oauth.insertFlow(flow);
    await s.oauth.takeState(flow.state_hash, NOW);
    const done = result(user.id, over);
    await s.oauth.finishFlow(app.id, flow.id, done);
    return { s, app, user, flow, done };
  };

  describe('oauth flows', () => {
    it('stores a flow and spends its state once, returning the flow as stored', async () => {
      const { s, app, user } = await setup();
      const flow = makeOAuthFlow(app.id, {
        nonce: null,
        client_code_challenge: uid('challenge'),
        link_user_id: user.id,
      });
      await s.oauth.insertFlow(flow);
      expect(await s.oauth.takeState(flow.state_hash, NOW + 5)).toEqual({
        ok: true,
        flow: { ...flow, state_used_at: NOW + 5 },
      });
      expect(await s.oauth.takeState(flow.state_hash, NOW + 6)).toEqual({ ok: false, reason: 'used' });
    });

    it('finds a state whatever its App: the state names the App', async () => {
      const { s } = await setup();
      const other = await setup();
      const flow = makeOAuthFlow(other.app.id);
      await s.oauth.insertFlow(flow);
      const taken = await s.oauth.takeState(flow.state_hash, NOW);
      expect(taken).toMatchObject({ ok: true, flow: { id: flow.id, app_id: other.app.id } });
    });

    it('refuses an unknown state, and an expired one without spending it', async () => {
      const { s, app } = await setup();
      expect(await s.oauth.takeState(uid('statehash'), NOW)).toEqual({ ok: false, reason: 'not_found' });
      const flow = makeOAuthFlow(app.id, { state_expires_at: NOW + 60 });
      await s.oauth.insertFlow(flow);
      // Expired at its expiry time itself.
      expect(await s.oauth.takeState(flow.state_hash, NOW + 60)).toEqual({ ok: false, reason: 'expired' });
      expect(await s.oauth.takeState(flow.state_hash, NOW + 61)).toEqual({ ok: false, reason: 'expired' });
      // The refusal wrote nothing: before its expiry the state is still unspent.
      expect(await s.oauth.takeState(flow.state_hash, NOW + 59)).toMatchObject({ ok: true });
      // Used comes before expired.
      expect(await s.oauth.takeState(flow.state_hash, NOW + 61)).toEqual({ ok: false, reason: 'used' });
    });

    it(`lets exactly one of ${racers} concurrent takes of a state through`, async () => {
      const { s, app } = await setup();
      const flow = makeOAuthFlow(app.id);
      await s.oauth.insertFlow(flow);
      const taken = await Promise.all(
        Array.from({ length: racers }, (_, i) => s.oauth.takeState(flow.state_hash, NOW + i)),
      );
      expect(taken.filter((t) => t.ok)).toHaveLength(1);
      expect(taken.filter((t) => !t.ok && t.reason === 'used')).toHaveLength(racers - 1);
    });

    it("records the callback's outcome and spends the token once, returning the finished flow", async () => {
      const { s, app, flow, done } = await finished();
      expect(await s.oauth.takeToken(app.id, done.token_hash, NOW + 10)).toEqual({
        ok: true,
        flow: { ...flow, ...done, state_used_at: NOW, token_used_at: NOW + 10 },
      });
      expect(await s.oauth.takeToken(app.id, done.token_hash, NOW + 11)).toEqual({
        ok: false,
        reason: 'used',
      });
    });

    it('records a flow that signed in an existing user (user_created false)', async () => {
      const { s, app, done } = await finished({ user_created: false });
      expect(await s.oauth.takeToken(app.id, done.token_hash, NOW)).toMatchObject({
        ok: true,
        flow: { user_created: false, user_id: done.user_id, link_id: done.link_id },
      });
    });

    it('refuses an unknown token, and an expired one without spending it', async () => {
      const { s, app, done } = await finished({ token_expires_at: NOW + 120 });
      expect(await s.oauth.takeToken(app.id, uid('tokenhash'), NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await s.oauth.takeToken(app.id, done.token_hash, NOW + 120)).toEqual({
        ok: false,
        reason: 'expired',
      });
      expect(await s.oauth.takeToken(app.id, done.token_hash, NOW + 119)).toMatchObject({ ok: true });
      expect(await s.oauth.takeToken(app.id, done.token_hash, NOW + 121)).toEqual({
        ok: false,
        reason: 'used',
      });
    });

    it("never spends another App's token: not_found there, still good in its own", async () => {
      const { s, app, done } = await finished();
      const other = await setup();
      expect(await s.oauth.takeToken(other.app.id, done.token_hash, NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await s.oauth.takeToken(app.id, done.token_hash, NOW)).toMatchObject({ ok: true });
    });

    it("finishes only the App's own flow, and a flow not yet finished has no token", async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const flow = makeOAuthFlow(app.id);
      await s.oauth.insertFlow(flow);
      await s.oauth.takeState(flow.state_hash, NOW);
      const done = result(user.id);
      await s.oauth.finishFlow(other.app.id, flow.id, { ...done, user_id: other.user.id });
      expect(await s.oauth.takeToken(app.id, done.token_hash, NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await s.oauth.takeToken(other.app.id, done.token_hash, NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      await s.oauth.finishFlow(app.id, flow.id, done);
      expect(await s.oauth.takeToken(app.id, done.token_hash, NOW)).toMatchObject({
        ok: true,
        flow: { id: flow.id, user_id: user.id },
      });
    });

    it('undoes a spend and a finish with the transaction that made them', async () => {
      const { s, app, user } = await setup();
      const flow = makeOAuthFlow(app.id);
      await s.oauth.insertFlow(flow);
      const done = result(user.id);
      const boom = new Error('callback failed after the spend');
      await expect(
        s.transaction(async (tx) => {
          expect(await tx.oauth.takeState(flow.state_hash, NOW)).toMatchObject({ ok: true });
          await tx.oauth.finishFlow(app.id, flow.id, done);
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await s.oauth.takeToken(app.id, done.token_hash, NOW)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await s.oauth.takeState(flow.state_hash, NOW + 1)).toEqual({
        ok: true,
        flow: { ...flow, state_used_at: NOW + 1 },
      });
    });

    it(`lets exactly one of ${racers} concurrent takes of a token through`, async () => {
      const { s, app, done } = await finished();
      const taken = await Promise.all(
        Array.from({ length: racers }, (_, i) => s.oauth.takeToken(app.id, done.token_hash, NOW + i)),
      );
      expect(taken.filter((t) => t.ok)).toHaveLength(1);
      expect(taken.filter((t) => !t.ok && t.reason === 'used')).toHaveLength(racers - 1);
    });
  });

  describe('oauth links', () => {
    it('links an identity and finds it by issuer and subject, by id and by user', async () => {
      const { s, app, user } = await setup();
      const link = makeOAuthLink(app.id, user.id, { email: null, email_verified: false });
      expect(await s.oauth.insertLink(link)).toEqual({ inserted: true, link });
      expect(await s.oauth.findLink(app.id, link.issuer, link.subject)).toEqual(link);
      expect(await s.oauth.getLink(app.id, link.id)).toEqual(link);
      expect(await s.oauth.listLinks(app.id, user.id)).toEqual([link]);
      expect(await s.oauth.findLink(app.id, link.issuer, uid('sub'))).toBeNull();
      expect(await s.oauth.getLink(app.id, uid('oauthlink'))).toBeNull();
    });

    it("lists a user's links oldest first, and no one else's", async () => {
      const { s, app, user } = await setup();
      const stranger = makeUser(app.id);
      await s.users.insert(stranger);
      const later = makeOAuthLink(app.id, user.id, { created_at: NOW + 5, provider_id: 'github' });
      const earlier = makeOAuthLink(app.id, user.id, { created_at: NOW + 1 });
      const theirs = makeOAuthLink(app.id, stranger.id);
      for (const link of [later, earlier, theirs]) await s.oauth.insertLink(link);
      expect(await s.oauth.listLinks(app.id, user.id)).toEqual([earlier, later]);
      expect(await s.oauth.listLinks(app.id, stranger.id)).toEqual([theirs]);
      expect(await s.oauth.listLinks(app.id, uid('user'))).toEqual([]);
    });

    it('keeps one link per issuer and subject: a second insert writes nothing and returns the first', async () => {
      const { s, app, user } = await setup();
      const stranger = makeUser(app.id);
      await s.users.insert(stranger);
      const first = makeOAuthLink(app.id, user.id);
      await s.oauth.insertLink(first);
      const again = makeOAuthLink(app.id, stranger.id, {
        subject: first.subject,
        email: 'other@example.com',
      });
      expect(await s.oauth.insertLink(again)).toEqual({ inserted: false, link: first });
      expect(await s.oauth.getLink(app.id, again.id)).toBeNull();
      expect(await s.oauth.listLinks(app.id, stranger.id)).toEqual([]);
      expect(await s.oauth.findLink(app.id, first.issuer, first.subject)).toEqual(first);
    });

    it('tells identities apart by issuer: the same subject at another issuer is another identity', async () => {
      const { s, app, user } = await setup();
      const google = makeOAuthLink(app.id, user.id, { subject: '12345' });
      const github = makeOAuthLink(app.id, user.id, {
        subject: '12345',
        issuer: 'https://github.com',
        provider_id: 'github',
      });
      expect((await s.oauth.insertLink(google)).inserted).toBe(true);
      expect((await s.oauth.insertLink(github)).inserted).toBe(true);
      expect(await s.oauth.findLink(app.id, google.issuer, '12345')).toEqual(google);
      expect(await s.oauth.findLink(app.id, github.issuer, '12345')).toEqual(github);
    });

    it("never shows one App another's links, but lets it link the same identity", async () => {
      const { s, app, user } = await setup();
      const other = await setup();
      const link = makeOAuthLink(app.id, user.id);
      await s.oauth.insertLink(link);
      expect(await s.oauth.getLink(other.app.id, link.id)).toBeNull();
      expect(await s.oauth.findLink(other.app.id, link.issuer, link.subject)).toBeNull();
      expect(await s.oauth.listLinks(other.app.id, user.id)).toEqual([]);
      expect(await s.oauth.updateLink(other.app.id, link.id, { email: 'x@example.com' })).toBeNull();
      expect(await s.oauth.deleteLink(other.app.id, link.id)).toBeNull();
      expect(await s.oauth.getLink(app.id, link.id)).toEqual(link);
      const elsewhere = makeOAuthLink(other.app.id, other.user.id, { subject: link.subject });
      expect(await s.oauth.insertLink(elsewhere)).toEqual({ inserted: true, link: elsewhere });
      expect(await s.oauth.findLink(app.id, link.issuer, link.subject)).toEqual(link);
    });

    it('updates the fields it names and leaves the others', async () => {
      const { s, app, user } = await setup();
      const link = makeOAuthLink(app.id, user.id);
      await s.oauth.insertLink(link);
      const sealed = await s.oauth.updateLink(app.id, link.id, {
        provider_tokens_sealed: 'sealed-tokens',
        updated_at: NOW + 3,
      });
      expect(sealed).toEqual({ ...link, provider_tokens_sealed: 'sealed-tokens', updated_at: NOW + 3 });
      const moved = await s.oauth.updateLink(app.id, link.id, {
        email: null,
        email_verified: false,
        provider_tokens_sealed: undefined,
      });
      expect(moved).toEqual({ ...sealed, email: null, email_verified: false });
      expect(await s.oauth.getLink(app.id, link.id)).toEqual(moved);
      expect(await s.oauth.updateLink(app.id, uid('oauthlink'), { email: null })).toBeNull();
    });

    it('deletes a link once, and the identity can then be linked again', async () => {
      const { s, app, user } = await setup();
      const link = makeOAuthLink(app.id, user.id);
      await s.oauth.insertLink(link);
      expect(await s.oauth.deleteLink(app.id, link.id)).toEqual(link);
      expect(await s.oauth.deleteLink(app.id, link.id)).toBeNull();
      expect(await s.oauth.getLink(app.id, link.id)).toBeNull();
      expect(await s.oauth.findLink(app.id, link.issuer, link.subject)).toBeNull();
      expect(await s.oauth.listLinks(app.id, user.id)).toEqual([]);
      const relinked = makeOAuthLink(app.id, user.id, { subject: link.subject });
      expect(await s.oauth.insertLink(relinked)).toEqual({ inserted: true, link: relinked });
    });

    it('undoes a link, an update and an unlink with the transaction that made them', async () => {
      const { s, app, user } = await setup();
      const kept = makeOAuthLink(app.id, user.id);
      await s.oauth.insertLink(kept);
      const added = makeOAuthLink(app.id, user.id);
      const boom = new Error('rolled back');
      await expect(
        s.transaction(async (tx) => {
          await tx.oauth.insertLink(added);
          await tx.oauth.updateLink(app.id, kept.id, { email: 'new@example.com', updated_at: NOW + 1 });
          await tx.oauth.deleteLink(app.id, kept.id);
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await s.oauth.listLinks(app.id, user.id)).toEqual([kept]);
      expect(await s.oauth.findLink(app.id, added.issuer, added.subject)).toBeNull();
    });

    it('of 10 concurrent inserts of one identity, exactly one is inserted and all answer its link', async () => {
      const { s, app, user } = await setup();
      const subject = uid('sub');
      const results = await Promise.all(
        Array.from({ length: 10 }, () => s.oauth.insertLink(makeOAuthLink(app.id, user.id, { subject }))),
      );
      const winners = results.filter((r) => r.inserted);
      expect(winners).toHaveLength(1);
      expect(new Set(results.map((r) => r.link.id))).toEqual(new Set([winners[0]!.link.id]));
      expect(await s.oauth.listLinks(app.id, user.id)).toEqual([winners[0]!.link]);
    });
  });

  describe('oauth link events', () => {
    // Latchkey's own storage wrapping (the write rules), reached through a capability's kernel:
    // the events are written by core, in the write's transaction on this adapter.
    const probe = defineCapability({
      name: 'oauthProbe',
      needs: [],
      storage: ['oauth'],
      service: ({ kernel }) => kernel.storage.oauth,
    });
    const recorded = (s: Storage) =>
      createLatchkey({
        storage: s,
        secret: 'storage-conformance-oauth-events-secret',
        capabilities: [defaultCapabilities[0], probe],
      }).oauthProbe;
    const linkEvents = async (s: Storage, appId: string) =>
      (await s.events.list(appId, { limit: 100 }))
        .filter((e) => e.type === 'user.oauth_linked' || e.type === 'user.oauth_unlinked')
        .reverse()
        .map(({ type, data }) => ({ type, data }));

    it('writes user.oauth_linked once per link and user.oauth_unlinked once per unlink', async () => {
      const { s, app, user } = await setup();
      const oauth = recorded(s);
      const link = makeOAuthLink(app.id, user.id, { provider_id: 'github', issuer: 'https://github.com' });
      const data = {
        user_id: user.id,
        link_id: link.id,
        provider_id: 'github',
        issuer: 'https://github.com',
      };
      await oauth.insertLink(link);
      await oauth.insertLink(makeOAuthLink(app.id, user.id, { issuer: link.issuer, subject: link.subject }));
      expect(await linkEvents(s, app.id)).toEqual([{ type: 'user.oauth_linked', data }]);
      await oauth.deleteLink(app.id, link.id);
      await oauth.deleteLink(app.id, link.id);
      expect(await linkEvents(s, app.id)).toEqual([
        { type: 'user.oauth_linked', data },
        { type: 'user.oauth_unlinked', data },
      ]);
    });

    it('writes one user.oauth_linked however many inserts of one identity race', async () => {
      const { s, app, user } = await setup();
      const oauth = recorded(s);
      const subject = uid('sub');
      const results = await Promise.all(
        Array.from({ length: 10 }, () => oauth.insertLink(makeOAuthLink(app.id, user.id, { subject }))),
      );
      const events = await linkEvents(s, app.id);
      expect(events).toHaveLength(1);
      expect(events[0]?.data.link_id).toBe(results.find((r) => r.inserted)?.link.id);
    });
  });
}
