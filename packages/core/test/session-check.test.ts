import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryStorage } from '@latchkey/memory';
import { decodeJwt } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLatchkey, type Factor, verifySessionJwt } from '../src/index.js';
import { KEY_REFRESH_GAP_SECONDS } from '../src/sessions/app-keys.js';
import { countingStorage, manualClock, TEST_SECRET } from './helpers.js';

const factor: Factor = {
  type: 'otp',
  delivery_channel: 'email',
  method: {
    method_id: 'email_x',
    method_type: 'email',
    email_id: 'email_x',
    email: 'x@example.com',
    last_verified_at: 0,
  },
};

async function setup(settings: Record<string, unknown> = {}) {
  const clock = manualClock();
  const counted = countingStorage(memoryStorage());
  const latchkey = createLatchkey({ storage: counted.storage, secret: TEST_SECRET, clock });
  const { app } = await latchkey.apps.create({ name: 'Host', settings });
  const user = await latchkey.users.create(app.id, { email: 'host@example.com' });
  // Listening and caught up: jwt mode then reads no storage (until then it reads the session).
  expect(await latchkey.sessions.watchRevocations()).toBe('live');
  const signIn = async () => {
    const issued = await latchkey.sessions.issue(app.id, user.user_id, factor, { session_expires_in: 60 });
    return {
      token: issued.session_token as string,
      jwt: issued.session_jwt as string,
      id: issued.session!.id,
    };
  };
  return { latchkey, clock, counted, appId: app.id, userId: user.user_id, signIn };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('sessions.check', () => {
  it('jwt mode: answers from the JWT alone, no storage access once the keys are held', async () => {
    const { latchkey, appId, userId, signIn, counted } = await setup();
    const s = await signIn();
    await latchkey.sessions.check({ app_id: appId, session_jwt: s.jwt, mode: 'jwt' });
    counted.reset();
    const auth = await latchkey.sessions.check({ app_id: appId, session_jwt: s.jwt, mode: 'jwt' });
    expect(auth).toEqual({
      app_id: appId,
      user_id: userId,
      session_id: s.id,
      factors: [factor],
      auth_time: factor.method.last_verified_at,
      expires_at: decodeJwt(s.jwt).exp,
    });
    for (let i = 0; i < 100; i++) await latchkey.sessions.check({ app_id: appId, session_jwt: s.jwt });
    expect(counted.calls).toEqual([]);
  });

  it('checkKnownJwt: the jwt-mode answer without a promise, only for a JWT verified before and until exp', async () => {
    const { latchkey, appId, signIn, clock, counted } = await setup();
    const s = await signIn();
    expect(latchkey.sessions.checkKnownJwt(appId, s.jwt)).toBeUndefined();
    const checked = await latchkey.sessions.check({ app_id: appId, session_jwt: s.jwt, mode: 'jwt' });
    counted.reset();
    expect(latchkey.sessions.checkKnownJwt(appId, s.jwt)).toEqual(checked);
    expect(counted.calls).toEqual([]);
    expect(latchkey.sessions.checkKnownJwt('app_other', s.jwt)).toBeUndefined();
    expect(latchkey.sessions.checkKnownJwt(appId, `${s.jwt}x`)).toBeUndefined();
    clock.advance(decodeJwt(s.jwt).exp! - Math.floor(clock.now() / 1000) + 1);
    expect(latchkey.sessions.checkKnownJwt(appId, s.jwt)).toBeUndefined();
  });

  it('verifying 1,000 JWTs imports the App’s key once', async () => {
    const { latchkey, appId, signIn } = await setup();
    const jwts: string[] = [];
    for (let i = 0; i < 1000; i++) jwts.push((await signIn()).jwt);
    const importKey = vi.spyOn(globalThis.crypto.subtle, 'importKey');
    const ids = new Set<string>();
    for (const jwt of jwts)
      ids.add((await latchkey.sessions.check({ app_id: appId, session_jwt: jwt })).session_id);
    expect(ids.size).toBe(1000);
    expect(importKey).toHaveBeenCalledTimes(1);
  });

  it('checks a JWT’s signature once, then answers from the verified claims until exp', async () => {
    const { latchkey, appId, signIn, clock } = await setup();
    const s = await signIn();
    const verify = vi.spyOn(globalThis.crypto.subtle, 'verify');
    for (let i = 0; i < 100; i++) await latchkey.sessions.check({ app_id: appId, session_jwt: s.jwt });
    expect(verify).toHaveBeenCalledTimes(1);
    const auth = await latchkey.sessions.check({ app_id: appId, session_jwt: s.jwt });
    expect(() => (auth.factors as unknown[]).push({})).toThrow();
    // Another JWT with the same header and claims but a changed signature is still checked, and refused.
    const [h, p, sig] = s.jwt.split('.') as [string, string, string];
    const forged = `${h}.${p}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`;
    await expect(latchkey.sessions.check({ app_id: appId, session_jwt: forged })).rejects.toMatchObject({
      errorType: 'invalid_session_jwt',
    });
    // Held for another App, it is refused.
    await expect(latchkey.sessions.check({ app_id: 'app_other', session_jwt: s.jwt })).rejects.toMatchObject({
      status: 401,
    });
    clock.advance(decodeJwt(s.jwt).exp! - Math.floor(clock.now() / 1000) + 1);
    await expect(latchkey.sessions.check({ app_id: appId, session_jwt: s.jwt })).rejects.toMatchObject({
      errorType: 'invalid_session_jwt',
    });
  });

  it('a revoked session is refused at once in token mode and in jwt mode, without a storage read', async () => {
    const { latchkey, appId, signIn, counted } = await setup();
    const s = await signIn();
    await latchkey.sessions.check({ app_id: appId, session_jwt: s.jwt, mode: 'jwt' });
    expect(latchkey.sessions.checkKnownJwt(appId, s.jwt)?.session_id).toBe(s.id);
    await latchkey.sessions.revoke(appId, { session_id: s.id });
    for (const input of [{ session_token: s.token }, { session_jwt: s.jwt, mode: 'token' as const }]) {
      await expect(latchkey.sessions.check({ app_id: appId, ...input })).rejects.toMatchObject({
        errorType: 'session_not_found',
        status: 401,
      });
    }
    counted.reset();
    expect(latchkey.sessions.checkKnownJwt(appId, s.jwt)).toBeUndefined();
    await expect(
      latchkey.sessions.check({ app_id: appId, session_jwt: s.jwt, mode: 'jwt' }),
    ).rejects.toMatchObject({ errorType: 'session_not_found', status: 401 });
    expect(counted.calls).toEqual([]);
  });

  it('a storage that keeps no record of revocations: jwt mode accepts a revoked session’s JWT until exp', async () => {
    const clock = manualClock();
    const { sessionRevocations: _channel, ...storage } = memoryStorage();
    const { revokedSince: _record, ...sessions } = storage.sessions;
    const latchkey = createLatchkey({ storage: { ...storage, sessions }, secret: TEST_SECRET, clock });
    expect(await latchkey.sessions.watchRevocations()).toBe('off');
    const { app } = await latchkey.apps.create({ name: 'Host' });
    const user = await latchkey.users.create(app.id, { email: 'host@example.com' });
    const issued = await latchkey.sessions.issue(app.id, user.user_id, factor, { session_expires_in: 60 });
    const jwt = issued.session_jwt as string;
    await latchkey.sessions.revoke(app.id, { session_id: issued.session!.id });
    // This process heard of its own revocation, so only another process's JWT check would pass.
    await expect(
      latchkey.sessions.check({ app_id: app.id, session_jwt: jwt, mode: 'jwt' }),
    ).rejects.toMatchObject({ errorType: 'session_not_found' });
    const elsewhere = createLatchkey({ storage: { ...storage, sessions }, secret: TEST_SECRET, clock });
    expect(
      (await elsewhere.sessions.check({ app_id: app.id, session_jwt: jwt, mode: 'jwt' })).session_id,
    ).toBe(issued.session!.id);
    clock.advance(300);
    await expect(
      elsewhere.sessions.check({ app_id: app.id, session_jwt: jwt, mode: 'jwt' }),
    ).rejects.toMatchObject({ errorType: 'invalid_session_jwt', status: 401 });
  });

  it('refuses another App’s JWT, a tampered one, garbage, and neither or both credentials', async () => {
    const a = await setup();
    const { app: other } = await a.latchkey.apps.create({ name: 'Other' });
    const s = await a.signIn();
    const cases = [
      { app_id: other.id, session_jwt: s.jwt },
      { app_id: other.id, session_token: s.token },
      { app_id: a.appId, session_jwt: `${s.jwt.slice(0, -4)}AAAA` },
      { app_id: a.appId, session_jwt: 'not.a.jwt' },
      { app_id: a.appId, session_token: 'lks_nope' },
    ];
    for (const input of cases) {
      await expect(a.latchkey.sessions.check(input), JSON.stringify(input)).rejects.toMatchObject({
        status: 401,
      });
    }
    await expect(a.latchkey.sessions.check({ app_id: a.appId })).rejects.toMatchObject({ status: 400 });
    await expect(
      a.latchkey.sessions.check({ app_id: a.appId, session_jwt: s.jwt, session_token: s.token }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('token mode writes activity at most once per activity_update_seconds', async () => {
    const { latchkey, appId, signIn, clock, counted } = await setup({
      sessions: { activity_update_seconds: 120 },
    });
    const s = await signIn();
    counted.reset();
    for (let i = 0; i < 50; i++) await latchkey.sessions.check({ app_id: appId, session_token: s.token });
    clock.advance(119);
    await latchkey.sessions.check({ app_id: appId, session_token: s.token });
    expect(counted.calls.filter((c) => c === 'sessions.touch')).toEqual([]);
    clock.advance(1);
    for (let i = 0; i < 50; i++) await latchkey.sessions.check({ app_id: appId, session_token: s.token });
    expect(counted.calls.filter((c) => c === 'sessions.touch')).toHaveLength(1);
    const stored = await latchkey.storage.sessions.get(appId, s.id);
    expect(stored!.last_active_at).toBe(Math.floor(clock.now() / 1000));
  });

  it('an unknown kid (a key made by another process) triggers one bounded reload', async () => {
    const { latchkey, appId, signIn, clock, counted } = await setup();
    const s = await signIn();
    await latchkey.sessions.check({ app_id: appId, session_jwt: s.jwt });
    // Another process over the same storage rotates the key and signs with the new one.
    const otherProcess = createLatchkey({ storage: latchkey.storage, secret: TEST_SECRET, clock });
    await otherProcess.sessions.rotateSigningKey(appId);
    const fresh = await otherProcess.sessions.authenticate(appId, { session_token: s.token });
    clock.advance(KEY_REFRESH_GAP_SECONDS);
    counted.reset();
    expect(
      (await latchkey.sessions.check({ app_id: appId, session_jwt: fresh.session_jwt })).session_id,
    ).toBe(s.id);
    expect(counted.calls).toEqual(['signingKeys.list']);
    // Made-up kids: at most one reload per gap, however many arrive.
    const [h, p, sig] = fresh.session_jwt.split('.');
    const header = JSON.parse(Buffer.from(h!, 'base64url').toString());
    counted.reset();
    clock.advance(KEY_REFRESH_GAP_SECONDS);
    for (let i = 0; i < 50; i++) {
      const forged = `${Buffer.from(JSON.stringify({ ...header, kid: `key_${i}` })).toString('base64url')}.${p}.${sig}`;
      await expect(latchkey.sessions.check({ app_id: appId, session_jwt: forged })).rejects.toMatchObject({
        errorType: 'invalid_session_jwt',
      });
    }
    expect(counted.calls).toEqual(['signingKeys.list']);
  });
});

describe('verifySessionJwt', () => {
  it('with a JWKS document: imports each key once, even from a new copy of the document per call', async () => {
    const { latchkey, appId, signIn } = await setup();
    const s = await signIn();
    const text = JSON.stringify(await latchkey.sessions.jwks(appId));
    const now = Math.floor(Date.UTC(2027, 0, 1) / 1000);
    const importKey = vi.spyOn(globalThis.crypto.subtle, 'importKey');
    for (let i = 0; i < 1000; i++) {
      await verifySessionJwt(s.jwt, { jwks: JSON.parse(text), appId, now });
    }
    expect(importKey).toHaveBeenCalledTimes(1);
  });

  it('with a JWKS URL: one key set per URL, fetched once for 1,000 verifications', async () => {
    const { latchkey, appId, signIn } = await setup();
    const s = await signIn();
    const body = JSON.stringify(await latchkey.sessions.jwks(appId));
    let fetches = 0;
    const server = createServer((_req, res) => {
      fetches++;
      res.setHeader('content-type', 'application/json');
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/auth/sessions/jwks/${appId}`;
      const importKey = vi.spyOn(globalThis.crypto.subtle, 'importKey');
      const now = Math.floor(Date.UTC(2027, 0, 1) / 1000);
      for (let i = 0; i < 1000; i++) await verifySessionJwt(s.jwt, { jwks: new URL(url), appId, now });
      expect(fetches).toBe(1);
      expect(importKey).toHaveBeenCalledTimes(1);
    } finally {
      server.close();
    }
  });
});

describe('sessions/authenticate hot path', () => {
  it('one storage read, no write, the same JWT and no key import in the common case', async () => {
    const { latchkey, appId, signIn, counted, clock } = await setup();
    const s = await signIn();
    await latchkey.sessions.authenticate(appId, { session_jwt: s.jwt });
    clock.advance(2);
    const importKey = vi.spyOn(globalThis.crypto.subtle, 'importKey');
    const sign = vi.spyOn(globalThis.crypto.subtle, 'sign');
    for (const fields of [{ session_token: s.token }, { session_jwt: s.jwt }]) {
      counted.reset();
      const res = await latchkey.sessions.authenticate(appId, fields);
      expect(res.session_jwt).toBe(s.jwt);
      expect(counted.calls, JSON.stringify(fields)).toHaveLength(1);
    }
    expect(importKey).not.toHaveBeenCalled();
    expect(sign).not.toHaveBeenCalled();
    // Past half the JWT's life: one new JWT, signed with the key already held.
    clock.advance(150);
    counted.reset();
    const later = await latchkey.sessions.authenticate(appId, { session_token: s.token });
    expect(later.session_jwt).not.toBe(s.jwt);
    // (The App's settings and its active key id are cached for 5 s and 60 s: those reads come back.)
    expect(counted.calls.filter((c) => c !== 'apps.get' && c !== 'signingKeys.getActive')).toEqual([
      'sessions.findByTokenHash',
      'sessions.touch',
    ]);
    expect(importKey).not.toHaveBeenCalled();
    expect(sign).toHaveBeenCalledTimes(1);
    expect((await latchkey.sessions.authenticate(appId, { session_token: s.token })).session_jwt).toBe(
      later.session_jwt,
    );
  });
});
