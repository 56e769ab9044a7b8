import { afterAll, describe, expect, it } from 'vitest';
import { createLatchkeyClient } from '../src/index.js';
import { createLatchkeyServerClient } from '../src/server.js';
import { baseUrl, caught, inProcessLatchkey } from './in-process.js';

// The client in Node against a real Latchkey, in process: its `fetch` is the instance's handler.
const sent: Array<{ to: string; code?: string }> = [];
const { latchkey, app, inProcess } = await inProcessLatchkey('Client', {
  secret: 'c'.repeat(40),
  sender: { send: async (m) => void sent.push(m as { to: string; code?: string }) },
});
afterAll(() => latchkey.close());

describe('@latchkey/client in Node', () => {
  it('signs in by email code, refreshes, signs out, with change events; the revoked token is refused', async () => {
    const lk = createLatchkeyClient({ publicToken: app.public_token, baseUrl, fetch: inProcess });
    const events: string[] = [];
    lk.session.onChange((c) => events.push(c.type));
    const email = 'node-client@example.com';
    const { method_id } = await lk.otps.email.loginOrCreate({ email });
    const code = sent.filter((m) => m.to === email).at(-1)!.code!;
    const signedIn = await lk.otps.verify({ method_id, otp: code });
    expect(lk.session.get()).toMatchObject({
      user_id: signedIn.user_id,
      session_token: signedIn.session_token,
    });
    const refreshed = await lk.session.refresh();
    expect(refreshed?.session_token).toBe(signedIn.session_token);
    await lk.session.signOut();
    expect(lk.session.get()).toBeNull();
    expect(events).toEqual(['signed-in', 'refreshed', 'signed-out']);
    const refused = await caught(
      lk.call('post /v1/auth/sessions/authenticate', { body: { session_token: signedIn.session_token! } }),
    );
    expect(refused).toMatchObject({ status: 401, error_type: 'session_not_found' });
    lk.close();
  });

  it('switches into an organization: holds the scoped session, whose roles the server reads; refuses a non-member', async () => {
    const lk = createLatchkeyClient({ publicToken: app.public_token, baseUrl, fetch: inProcess });
    const email = 'org-member@example.com';
    const { method_id } = await lk.otps.email.loginOrCreate({ email });
    const before = await lk.otps.verify({ method_id, otp: sent.filter((m) => m.to === email).at(-1)!.code! });
    const org = await latchkey.organizations.create(app.app_id, {
      name: 'Acme',
      slug: 'acme-client',
      owner_user_id: before.user_id,
    });
    const other = await latchkey.organizations.create(app.app_id, { name: 'Other', slug: 'other-client' });

    const switched = await lk.session.switchOrganization(org.organization_id);
    expect(lk.session.get()).toMatchObject({
      user_id: before.user_id,
      session_token: switched.session_token,
    });
    expect(switched.session_token).not.toBe(before.session_token);
    const check = await latchkey.sessions.check({
      app_id: app.app_id,
      session_token: switched.session_token!,
      mode: 'token',
    });
    expect(check).toMatchObject({ organization_id: org.organization_id, roles: ['owner'] });
    // The session sent was traded, not kept beside the new one.
    const old = await caught(
      lk.call('post /v1/auth/sessions/authenticate', { body: { session_token: before.session_token! } }),
    );
    expect(old).toMatchObject({ status: 401, error_type: 'session_not_found' });

    const refused = await caught(lk.session.switchOrganization(other.organization_id));
    expect(refused).toMatchObject({ status: 403, error_type: 'not_a_member' });
    expect(lk.session.get()?.session_token).toBe(switched.session_token);
    await lk.session.signOut();
    expect((await caught(lk.session.switchOrganization(org.organization_id))).error_type).toBe(
      'session_required',
    );
    lk.close();
  });

  it("lists the user's devices, signs out one, then all the others, keeping this one", async () => {
    const email = 'devices@example.com';
    const device = async () => {
      const lk = createLatchkeyClient({ publicToken: app.public_token, baseUrl, fetch: inProcess });
      const { method_id } = await lk.otps.email.loginOrCreate({ email });
      await lk.otps.verify({ method_id, otp: sent.filter((m) => m.to === email).at(-1)!.code! });
      return lk;
    };
    const [laptop, phone, tablet, kiosk] = [await device(), await device(), await device(), await device()];
    const listed = await laptop.session.list();
    expect(listed).toHaveLength(4);
    expect(listed.filter((s) => s.current).map((s) => s.id)).toEqual([laptop.session.get()!.session!.id]);
    const kioskId = kiosk.session.get()!.session!.id;
    expect(await laptop.session.revoke(kioskId)).toMatchObject({ session_id: kioskId, current: false });
    expect(laptop.session.get()).not.toBeNull();
    expect((await caught(kiosk.session.refresh())).error_type).toBe('session_not_found');
    const others = await laptop.session.revokeOthers();
    expect(others.session_ids).toHaveLength(2);
    expect((await laptop.session.list()).map((s) => s.current)).toEqual([true]);
    expect((await caught(phone.session.refresh())).status).toBe(401);
    expect((await caught(tablet.session.refresh())).status).toBe(401);
    await laptop.session.signOut();
    expect((await caught(laptop.session.list())).error_type).toBe('session_required');
    for (const lk of [laptop, phone, tablet, kiosk]) lk.close();
  });

  it('switches into an organization: the scoped session is held in place of the revoked one; a non-member is refused', async () => {
    const lk = createLatchkeyClient({ publicToken: app.public_token, baseUrl, fetch: inProcess });
    const email = 'org-switch@example.com';
    const { method_id } = await lk.otps.email.loginOrCreate({ email });
    const signedIn = await lk.otps.verify({
      method_id,
      otp: sent.filter((m) => m.to === email).at(-1)!.code!,
    });
    const admin = (path: string, body: unknown) =>
      latchkey
        .fetch(
          new Request(`${baseUrl}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${app.secret_key}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }),
        )
        .then((r) => r.json() as Promise<{ organization_id: string }>);
    const mine = await admin('/v1/organizations', {
      name: 'Mine',
      slug: 'client-mine',
      owner_user_id: signedIn.user_id,
    });
    const theirs = await admin('/v1/organizations', { name: 'Theirs', slug: 'client-theirs' });

    const refused = await caught(lk.session.switchOrganization(theirs.organization_id));
    expect(refused).toMatchObject({ status: 403, error_type: 'not_a_member' });
    expect(lk.session.get()?.session_token).toBe(signedIn.session_token);

    const scoped = await lk.session.switchOrganization(mine.organization_id);
    expect(scoped.session.organization_id).toBe(mine.organization_id);
    expect(lk.session.get()).toMatchObject({ session_token: scoped.session_token });
    expect(scoped.session_token).not.toBe(signedIn.session_token);
    expect((await lk.session.refresh())?.session?.organization_id).toBe(mine.organization_id);
    lk.close();
  });

  it('cross-tab: a sign-in, refresh and sign-out in one client reach another on the same storage key, never a token in none mode', async () => {
    const tab = (storageKey: string, session: 'memory' | 'none' = 'memory') =>
      createLatchkeyClient({
        publicToken: app.public_token,
        baseUrl,
        fetch: inProcess,
        storageKey,
        session,
        crossTab: true,
      });
    const [a, b, elsewhere] = [tab('shared'), tab('shared'), tab('other')];
    const heard: Array<{ type: string; fromOtherTab?: boolean; token?: string }> = [];
    b.session.onChange((c) =>
      heard.push({ type: c.type, fromOtherTab: c.fromOtherTab, token: c.session?.session_token }),
    );
    const elsewhereHeard: string[] = [];
    elsewhere.session.onChange((c) => elsewhereHeard.push(c.type));
    const next = () => new Promise<void>((resolve) => b.session.onChange(() => resolve()));

    const email = 'cross-tab@example.com';
    const { method_id } = await a.otps.email.loginOrCreate({ email });
    let arrived = next();
    const signedIn = await a.otps.verify({
      method_id,
      otp: sent.filter((m) => m.to === email).at(-1)!.code!,
    });
    await arrived;
    expect(b.session.get()?.session_token).toBe(signedIn.session_token);
    arrived = next();
    await a.session.refresh();
    await arrived;
    expect(b.session.get()?.session_jwt).toBe(a.session.get()?.session_jwt);
    arrived = next();
    await a.session.signOut();
    await arrived;
    expect(b.session.get()).toBeNull();
    expect(heard).toEqual([
      { type: 'signed-in', fromOtherTab: true, token: signedIn.session_token },
      { type: 'refreshed', fromOtherTab: true, token: signedIn.session_token },
      { type: 'signed-out', fromOtherTab: true, token: undefined },
    ]);
    // Another storage key is another session: it heard nothing.
    expect(elsewhereHeard).toEqual([]);

    // Someone else's message on the channel is not a session change: ignored.
    const stranger = new BroadcastChannel('latchkey:shared');
    arrived = next();
    stranger.postMessage({ type: 'signed-in', session: { user_id: 42 } });
    stranger.postMessage({ type: 'signed-out', session: null });
    await arrived;
    expect(heard.slice(3)).toEqual([{ type: 'signed-out', fromOtherTab: true, token: undefined }]);
    stranger.close();

    // Cookie mode: the other tab learns the user id, never the token in the sign-in's answer.
    const [c, d] = [tab('cookies', 'none'), tab('cookies', 'none')];
    const dHeard: unknown[] = [];
    d.session.onChange((change) => dHeard.push(change.session));
    const done = new Promise<void>((resolve) => d.session.onChange(() => resolve()));
    const { method_id: cookieMethod } = await c.otps.email.loginOrCreate({ email });
    const cookieSignIn = await c.otps.verify({
      method_id: cookieMethod,
      otp: sent.filter((m) => m.to === email).at(-1)!.code!,
    });
    await done;
    expect(cookieSignIn.session_token).toMatch(/^lks_/);
    expect(dHeard).toEqual([{ user_id: cookieSignIn.user_id }]);
    for (const client of [a, b, c, d, elsewhere]) client.close();
  });

  it('turns every failure into one typed error: catalogue body, request id, field, non-JSON answer, no answer', async () => {
    const lk = createLatchkeyClient({ publicToken: app.public_token, baseUrl, fetch: inProcess });
    const bad = await caught(lk.otps.email.send({ email: 'not an email' }));
    expect(bad).toMatchObject({ status: 400, error_type: 'invalid_email', name: 'LatchkeyClientError' });
    expect(bad.request_id).toMatch(/^req_/);
    const missing = await caught(lk.call('post /v1/auth/otps/verify', { body: { otp: '1' } as never }));
    expect(missing).toMatchObject({ status: 400, error_type: 'missing_field', error_field: 'method_id' });

    const html: typeof fetch = async () => new Response('<h1>Bad gateway</h1>', { status: 502 });
    const proxy = createLatchkeyClient({ publicToken: app.public_token, baseUrl, fetch: html });
    expect(await caught(proxy.otps.email.send({ email: 'a@example.com' }))).toMatchObject({
      status: 502,
      error_type: 'invalid_response',
    });
    const offline = createLatchkeyClient({ publicToken: app.public_token, baseUrl: 'http://127.0.0.1:1' });
    expect(await caught(offline.otps.email.send({ email: 'a@example.com' }))).toMatchObject({
      status: 0,
      error_type: 'network_error',
    });
  });

  it('the server entry calls secret-key routes; the public token is refused there', async () => {
    const server = createLatchkeyServerClient({ baseUrl, secretKey: app.secret_key, fetch: inProcess });
    const user = await server.call('post /v1/auth/users', { body: { email: 'server-client@example.com' } });
    const again = await server.call('get /v1/auth/users/{user_id}', { params: { user_id: user.user_id } });
    expect(again.user_id).toBe(user.user_id);
    const asBrowser = createLatchkeyServerClient({ baseUrl, secretKey: app.public_token, fetch: inProcess });
    const refused = await caught(
      asBrowser.call('get /v1/auth/users/{user_id}', { params: { user_id: user.user_id } }),
    );
    expect(refused).toMatchObject({ status: 403, error_type: 'secret_key_required' });
  });

  it('the server entry sends from wallets and follows their transactions', async () => {
    const server = createLatchkeyServerClient({ baseUrl, secretKey: app.secret_key, fetch: inProcess });
    const user = await server.call('post /v1/auth/users', { body: { email: 'sender@example.com' } });
    const wallet = await server.call('post /v1/wallets/create', {
      body: { user_id: user.user_id, wallet_type: 'ethereum' },
    });
    const params = { wallet_id: wallet.id };
    expect(await server.call('get /v1/wallets/{wallet_id}/transactions', { params, query: {} })).toEqual({
      transactions: [],
      next_cursor: null,
    });
    // This instance has no chain endpoint: the documented 503, typed.
    const unconfigured = await caught(
      server.call('post /v1/wallets/{wallet_id}/send_transaction', {
        params,
        body: { eth_transaction: { chain_id: '1', to: wallet.public_address, value: '1' } },
      }),
    );
    expect(unconfigured).toMatchObject({ status: 503, error_type: 'chain_not_configured' });
    const missing = await caught(
      server.call('post /v1/wallets/{wallet_id}/transactions/{transaction_id}/speed_up', {
        params: { ...params, transaction_id: 'wtx_none' },
        body: {},
      }),
    );
    expect(missing).toMatchObject({ status: 404, error_type: 'transaction_not_found' });
  });
});
