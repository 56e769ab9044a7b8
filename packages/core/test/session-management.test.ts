import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey, type EventRecord, type Storage } from '../src/index.js';
import {
  capturingSender,
  expectErrorShape,
  manualClock,
  TEST_SECRET,
  type TestApp,
  testApp,
} from './helpers.js';
import { storageBackends } from './storage-backends.js';

const MAC_CHROME =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

describe.each(storageBackends())('sessions a user can see and end, on $name', (backend) => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let t: TestApp;
  let other: TestApp;
  const clock = manualClock();
  const sender = capturingSender();
  const events: EventRecord[] = [];

  beforeAll(async () => {
    const opened = await backend.open();
    storage = opened.storage;
    dispose = opened.dispose;
    const latchkey = createLatchkey({ storage, secret: TEST_SECRET, clock, sender });
    latchkey.events.on('*', (e) => {
      events.push(e);
    });
    t = await testApp(latchkey);
    other = await testApp(latchkey);
  });
  afterAll(async () => {
    await dispose?.();
  });

  let n = 0;
  /** A new user signed in on `devices` devices (one session each), through the App `app`. */
  async function signedIn(devices: Array<{ user_agent?: string; ip?: string }>, app: TestApp = t) {
    const email = `s${n++}-${Math.random().toString(36).slice(2)}@example.com`;
    const sessions: Array<{ id: string; token: string; jwt: string; user_id: string }> = [];
    for (const device of devices) {
      const send = await app.call('POST', '/v1/auth/otps/email/login_or_create', { email });
      const verify = await app.call('POST', '/v1/auth/otps/verify', {
        method_id: send.body.method_id,
        otp: sender.lastCode(email),
        session_expires_in: 60,
        ...(Object.keys(device).length ? { device_fingerprint: device } : {}),
      });
      expect(verify.status).toBe(200);
      sessions.push({
        id: verify.body.session.id,
        token: verify.body.session_token,
        jwt: verify.body.session_jwt,
        user_id: verify.body.user_id,
      });
      clock.advance(1);
    }
    return { user_id: sessions[0]!.user_id, sessions };
  }

  const list = (query: Record<string, string>, key?: string) =>
    t.call('GET', `/v1/auth/sessions?${new URLSearchParams(query)}`, undefined, key);
  const live = async (token: string, app: TestApp = t) =>
    (await app.call('POST', '/v1/auth/sessions/authenticate', { session_token: token })).status === 200;
  const revokedEvents = (sessionId: string) =>
    events.filter((e) => e.type === 'session.revoked' && e.data.session_id === sessionId);

  it("lists the caller's live sessions with device, factors and which one is current", async () => {
    const { user_id, sessions } = await signedIn([
      { user_agent: MAC_CHROME, ip: '203.0.113.7' },
      { user_agent: IPHONE_SAFARI, ip: '198.51.100.2' },
      {},
    ]);
    const [mac, phone, bare] = sessions as [(typeof sessions)[0], (typeof sessions)[0], (typeof sessions)[0]];
    const byToken = await list({ session_token: phone.token }, t.public_token);
    expect(byToken.status).toBe(200);
    // The most recently active first.
    expect(byToken.body.sessions.map((s: { id: string }) => s.id)).toEqual([bare.id, phone.id, mac.id]);
    const macRow = byToken.body.sessions.find((s: { id: string }) => s.id === mac.id);
    expect(macRow).toMatchObject({
      id: mac.id,
      user_id,
      device_fingerprint: { user_agent: MAC_CHROME, ip: '203.0.113.7' },
      device_label: 'Chrome on macOS',
      current: false,
      started_at: expect.any(Number),
      last_active_at: expect.any(Number),
      expires_at: expect.any(Number),
    });
    expect(macRow.factors[0]).toMatchObject({
      type: 'otp',
      delivery_channel: 'email',
      method: { last_verified_at: macRow.started_at },
    });
    expect(macRow).not.toHaveProperty('session_token');
    expect(JSON.stringify(byToken.body)).not.toContain(mac.token);
    expect(byToken.body.sessions.map((s: { current: boolean }) => s.current)).toEqual([false, true, false]);
    expect(byToken.body.sessions[1].device_label).toBe('Safari on iOS');
    expect(byToken.body.sessions[0].device_label).toBe('Unknown device');

    const byJwt = await list({ session_jwt: mac.jwt }, t.public_token);
    expect(
      byJwt.body.sessions.filter((s: { current: boolean }) => s.current).map((s: { id: string }) => s.id),
    ).toEqual([mac.id]);
    const byUser = await list({ user_id });
    expect(byUser.status).toBe(200);
    expect(byUser.body.sessions).toHaveLength(3);
    expect(byUser.body.sessions.every((s: { current: boolean }) => !s.current)).toBe(true);

    // Revoked and expired sessions are not listed.
    await t.call('POST', '/v1/auth/sessions/revoke', { session_id: bare.id });
    expect((await list({ user_id })).body.sessions.map((s: { id: string }) => s.id)).toEqual([
      phone.id,
      mac.id,
    ]);
    clock.advance(3600);
    expect((await list({ user_id })).body.sessions).toEqual([]);
    expect(expectErrorShape(await list({ session_token: phone.token }, t.public_token)).error_type).toBe(
      'session_not_found',
    );
  });

  it('lists by user_id with the secret key only, and never another App’s user', async () => {
    const { user_id, sessions } = await signedIn([{}]);
    const publicTry = await list({ user_id }, t.public_token);
    expect(publicTry.status).toBe(403);
    expect(expectErrorShape(publicTry)).toMatchObject({
      error_type: 'secret_key_required',
      error_field: 'user_id',
    });
    const elsewhere = await other.call('GET', `/v1/auth/sessions?user_id=${user_id}`);
    expect(elsewhere.status).toBe(404);
    expect(expectErrorShape(elsewhere).error_type).toBe('user_not_found');
    // Another App's session token names no session here.
    const foreignToken = await other.call(
      'GET',
      `/v1/auth/sessions?session_token=${sessions[0]!.token}`,
      undefined,
      other.public_token,
    );
    expect(expectErrorShape(foreignToken).error_type).toBe('session_not_found');
    expect(expectErrorShape(await list({}, t.public_token)).error_type).toBe('missing_field');
    expect(expectErrorShape(await list({ user_id, session_token: sessions[0]!.token })).error_type).toBe(
      'invalid_field',
    );
  });

  it("revokes another device of the caller's user by id, keeping the caller signed in", async () => {
    const { sessions } = await signedIn([{ user_agent: MAC_CHROME }, { user_agent: IPHONE_SAFARI }]);
    const [mac, phone] = sessions as [(typeof sessions)[0], (typeof sessions)[0]];
    const res = await t.call(
      'POST',
      '/v1/auth/sessions/revoke',
      { session_id: mac.id, session_jwt: phone.jwt },
      t.public_token,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: expect.any(String),
      session_id: mac.id,
      user_id: mac.user_id,
      current: false,
    });
    expect(await live(mac.token)).toBe(false);
    expect(await live(phone.token)).toBe(true);
    expect(revokedEvents(mac.id).map((e) => e.data.reason)).toEqual(['user']);
    // Again: the session is no longer live, one event only.
    const again = await t.call(
      'POST',
      '/v1/auth/sessions/revoke',
      { session_id: mac.id, session_token: phone.token },
      t.public_token,
    );
    expect(expectErrorShape(again).error_type).toBe('session_not_found');
    expect(revokedEvents(mac.id)).toHaveLength(1);
    // Its own id beside its own token: a logout, which says so.
    const self = await t.call(
      'POST',
      '/v1/auth/sessions/revoke',
      { session_id: phone.id, session_token: phone.token },
      t.public_token,
    );
    expect(self.body.current).toBe(true);
    expect(await live(phone.token)).toBe(false);
  });

  it("refuses another user's and another App's session id as a missing one, and revokes nothing", async () => {
    const alice = await signedIn([{}]);
    const bob = await signedIn([{}]);
    const foreign = await signedIn([{}], other);
    for (const session_id of [bob.sessions[0]!.id, foreign.sessions[0]!.id, 'session_nope']) {
      const res = await t.call(
        'POST',
        '/v1/auth/sessions/revoke',
        { session_id, session_token: alice.sessions[0]!.token },
        t.public_token,
      );
      expect(res.status, session_id).toBe(401);
      expect(expectErrorShape(res).error_type).toBe('session_not_found');
    }
    // The secret key reaches any session of its own App, not another App's.
    const crossApp = await t.call('POST', '/v1/auth/sessions/revoke', {
      session_id: foreign.sessions[0]!.id,
    });
    expect(expectErrorShape(crossApp).error_type).toBe('session_not_found');
    expect(await live(bob.sessions[0]!.token)).toBe(true);
    expect(await live(foreign.sessions[0]!.token, other)).toBe(true);
    expect(revokedEvents(bob.sessions[0]!.id)).toEqual([]);
    expect(revokedEvents(foreign.sessions[0]!.id)).toEqual([]);
    // session_id alone with the public token: anyone could log anyone out.
    const alone = await t.call(
      'POST',
      '/v1/auth/sessions/revoke',
      { session_id: bob.sessions[0]!.id },
      t.public_token,
    );
    expect(alone.status).toBe(403);
    expect(expectErrorShape(alone).error_type).toBe('secret_key_required');
    expect(await live(bob.sessions[0]!.token)).toBe(true);
    const admin = await t.call('POST', '/v1/auth/sessions/revoke', { session_id: bob.sessions[0]!.id });
    expect(admin.body).toMatchObject({ session_id: bob.sessions[0]!.id, current: false });
    expect(revokedEvents(bob.sessions[0]!.id).map((e) => e.data.reason)).toEqual(['admin']);
  });

  it("in process, a host's revoke by session_id and user_id ends only that user's session", async () => {
    const alice = await signedIn([{}, {}]);
    const bob = await signedIn([{}]);
    const [aliceOther] = alice.sessions as [(typeof alice.sessions)[0]];
    await expect(
      t.latchkey.sessions.revoke(t.app_id, { session_id: bob.sessions[0]!.id, user_id: alice.user_id }),
    ).rejects.toMatchObject({ errorType: 'session_not_found' });
    expect(await live(bob.sessions[0]!.token)).toBe(true);
    const ended = await t.latchkey.sessions.revoke(t.app_id, {
      session_id: aliceOther.id,
      user_id: alice.user_id,
    });
    expect(ended).toMatchObject({ session_id: aliceOther.id, current: false });
    expect(revokedEvents(aliceOther.id).map((e) => e.data.reason)).toEqual(['user']);
  });

  it('signs out the other devices with except_current, or every device', async () => {
    const { user_id, sessions } = await signedIn([{}, {}, {}]);
    const [a, b, c] = sessions as [(typeof sessions)[0], (typeof sessions)[0], (typeof sessions)[0]];
    const others = await t.call(
      'POST',
      '/v1/auth/sessions/revoke_all',
      { session_token: c.token, except_current: true },
      t.public_token,
    );
    expect(others.status).toBe(200);
    expect(others.body).toMatchObject({ user_id, current: false });
    expect([...others.body.session_ids].sort()).toEqual([a.id, b.id].sort());
    expect([await live(a.token), await live(b.token), await live(c.token)]).toEqual([false, false, true]);
    expect([a, b].flatMap((s) => revokedEvents(s.id).map((e) => e.data.reason))).toEqual(['user', 'user']);

    const all = await t.call('POST', '/v1/auth/sessions/revoke_all', { session_jwt: c.jwt }, t.public_token);
    expect(all.body).toMatchObject({ session_ids: [c.id], current: true });
    expect(await live(c.token)).toBe(false);
  });

  it('revokes every session of a user by user_id with the secret key, keeping except_session_id', async () => {
    const { user_id, sessions } = await signedIn([{}, {}]);
    const bystander = await signedIn([{}]);
    const [a, b] = sessions as [(typeof sessions)[0], (typeof sessions)[0]];
    const publicTry = await t.call('POST', '/v1/auth/sessions/revoke_all', { user_id }, t.public_token);
    expect(expectErrorShape(publicTry).error_type).toBe('secret_key_required');
    const foreign = await other.call('POST', '/v1/auth/sessions/revoke_all', { user_id });
    expect(expectErrorShape(foreign).error_type).toBe('user_not_found');
    expect(await live(a.token)).toBe(true);
    const res = await t.call('POST', '/v1/auth/sessions/revoke_all', { user_id, except_session_id: b.id });
    expect(res.body).toMatchObject({ user_id, session_ids: [a.id], current: false });
    expect(revokedEvents(a.id).map((e) => e.data.reason)).toEqual(['admin']);
    expect([await live(a.token), await live(b.token), await live(bystander.sessions[0]!.token)]).toEqual([
      false,
      true,
      true,
    ]);
    for (const body of [
      { user_id, except_current: true },
      { session_token: b.token, except_session_id: a.id },
      { user_id, session_token: b.token },
    ]) {
      const bad = await t.call('POST', '/v1/auth/sessions/revoke_all', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(expectErrorShape(bad).error_type).toBe('invalid_field');
    }
    expect(await live(b.token)).toBe(true);
  });

  it('emits exactly one session.revoked when 20 revokes of one session race', async () => {
    const { sessions } = await signedIn([{}, {}]);
    const [target, caller] = sessions as [(typeof sessions)[0], (typeof sessions)[0]];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? t.call('POST', '/v1/auth/sessions/revoke', { session_id: target.id })
          : t.call(
              'POST',
              '/v1/auth/sessions/revoke',
              { session_id: target.id, session_token: caller.token },
              t.public_token,
            ),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200))
      expect(expectErrorShape(r).error_type).toBe('session_not_found');
    expect(revokedEvents(target.id)).toHaveLength(1);
    const stored = await storage.events.list(t.app_id, { type: 'session.revoked', limit: 100 });
    expect(
      stored.filter((e) => e.type === 'session.revoked' && e.data.session_id === target.id),
    ).toHaveLength(1);
  });
});
