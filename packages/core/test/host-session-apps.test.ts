import { memoryStorage } from '@latchkey/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLatchkey,
  type Factor,
  type HostRequest,
  type HostSessionOptions,
  hostSessionResolver,
  type Latchkey,
} from '../src/index.js';
import { countingStorage, TEST_SECRET } from './helpers.js';
import { storageBackends } from './storage-backends.js';

const factor = (email: string): Factor => ({
  type: 'otp',
  delivery_channel: 'email',
  method: {
    method_id: `email_${email}`,
    method_type: 'email',
    email_id: `email_${email}`,
    email,
    last_verified_at: 0,
  },
});

/** A host request as an adapter describes it. */
function hostRequest(headers: Record<string, string>, method = 'GET', origin = 'https://shop.example.com') {
  return {
    method,
    header: (name: string) => headers[name],
    origin,
    hostname: new URL(origin).hostname,
  } satisfies HostRequest;
}

/** `aud` swapped in a real JWT's payload, signature kept: a JWT naming another App. */
function withAudience(jwt: string, aud: unknown): string {
  const [header, payload, signature] = jwt.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
  return [header, Buffer.from(JSON.stringify({ ...claims, aud })).toString('base64url'), signature].join('.');
}

describe.each(storageBackends())('host sessions of several Apps on one instance ($name)', (backend) => {
  let dispose: () => Promise<void>;
  let latchkey: Latchkey;
  let counted: ReturnType<typeof countingStorage>;
  const apps: Array<{ appId: string; token: string; jwt: string; userId: string }> = [];

  const signIn = async (appId: string, email: string) => {
    const { user_id } = await latchkey.users.create(appId, { email });
    const issued = await latchkey.sessions.issue(appId, user_id, factor(email), { session_expires_in: 60 });
    return {
      appId,
      token: issued.session_token as string,
      jwt: issued.session_jwt as string,
      userId: user_id,
    };
  };

  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    counted = countingStorage(opened.storage);
    latchkey = createLatchkey({ storage: counted.storage, secret: TEST_SECRET });
    for (const name of ['First', 'Second']) {
      const { app_id } = await latchkey.apps.create({ name });
      apps.push(await signIn(app_id, `${name.toLowerCase()}@example.com`));
    }
  });
  afterAll(() => dispose());

  const resolve = (options: HostSessionOptions, headers: Record<string, string>, method?: string) =>
    hostSessionResolver(latchkey, options)(hostRequest(headers, method));

  it.each(['jwt', 'token'] as const)(
    'without app_id, each App’s JWT and token (bearer and cookie) is checked against its own App (%s mode)',
    async (mode) => {
      for (const s of apps) {
        for (const headers of [
          { authorization: `Bearer ${s.jwt}` } as Record<string, string>,
          { authorization: `Bearer ${s.token}` },
          { cookie: `__Host-latchkey_session_jwt=${s.jwt}` },
          { cookie: `__Host-latchkey_session=${s.token}` },
          { cookie: `__Host-latchkey_session=${s.token}; __Host-latchkey_session_jwt=${s.jwt}` },
        ]) {
          const { session } = await resolve({ mode, cookies: true }, headers);
          expect(session, JSON.stringify(headers).slice(0, 60)).toMatchObject({
            kind: 'session',
            appId: s.appId,
            auth: { app_id: s.appId, user_id: s.userId },
          });
        }
      }
    },
  );

  it('an App created after the resolver: its sessions are accepted too', async () => {
    const resolver = hostSessionResolver(latchkey, { mode: 'token' });
    await resolver(hostRequest({ authorization: `Bearer ${apps[0]!.jwt}` }));
    const { app_id } = await latchkey.apps.create({ name: 'Third' });
    const third = await signIn(app_id, 'third@example.com');
    for (const credential of [third.jwt, third.token]) {
      const { session } = await resolver(hostRequest({ authorization: `Bearer ${credential}` }));
      expect(session).toMatchObject({ kind: 'session', auth: { app_id, user_id: third.userId } });
    }
  });

  it('with app_id, the other App’s JWT and token get the documented 401s', async () => {
    const [mine, theirs] = apps as [(typeof apps)[0], (typeof apps)[0]];
    for (const mode of ['jwt', 'token'] as const) {
      const only = { app_id: mine.appId, mode, cookies: true };
      expect((await resolve(only, { authorization: `Bearer ${mine.jwt}` })).session.kind).toBe('session');
      for (const [headers, errorType] of [
        [{ authorization: `Bearer ${theirs.jwt}` }, 'invalid_session_jwt'],
        [{ authorization: `Bearer ${theirs.token}` }, 'session_not_found'],
        [{ cookie: `__Host-latchkey_session_jwt=${theirs.jwt}` }, 'invalid_session_jwt'],
        [{ cookie: `__Host-latchkey_session=${theirs.token}` }, 'session_not_found'],
        // The JWT names the other App; its signature is the first App's: refused either way.
        [{ authorization: `Bearer ${withAudience(theirs.jwt, mine.appId)}` }, 'invalid_session_jwt'],
      ] as const) {
        const { session } = await resolve(only, headers);
        expect(
          session.kind === 'error' && session.error.errorType,
          `${mode} ${JSON.stringify(headers)}`,
        ).toBe(errorType);
      }
    }
  });

  it('malformed or made-up credentials without app_id: the documented 401s, never a throw', async () => {
    const [mine, theirs] = apps as [(typeof apps)[0], (typeof apps)[0]];
    for (const [credential, errorType] of [
      ['abc.def.ghi', 'invalid_session_jwt'],
      [withAudience(mine.jwt, theirs.appId), 'invalid_session_jwt'],
      [withAudience(mine.jwt, 'app_made_up'), 'invalid_session_jwt'],
      [withAudience(mine.jwt, [mine.appId, theirs.appId]), 'invalid_session_jwt'],
      [withAudience(mine.jwt, 42), 'invalid_session_jwt'],
      [withAudience(mine.jwt, 'a'.repeat(500)), 'invalid_session_jwt'],
      ['lks_made_up', 'session_not_found'],
      [`${mine.token}x`, 'session_not_found'],
    ] as const) {
      for (const mode of ['jwt', 'token'] as const) {
        const { session } = await resolve({ mode }, { authorization: `Bearer ${credential}` });
        expect(
          session.kind === 'error' && session.error.errorType,
          `${mode} ${credential.slice(0, 30)}`,
        ).toBe(errorType);
      }
    }
  });

  it('jwt mode without app_id reads no storage for a JWT it has seen; a token’s App is looked up once', async () => {
    const s = apps[1]!;
    const resolver = hostSessionResolver(latchkey, {});
    await resolver(hostRequest({ authorization: `Bearer ${s.jwt}` }));
    counted.reset();
    for (let i = 0; i < 3; i++) {
      const { session } = await resolver(hostRequest({ authorization: `Bearer ${s.jwt}` }));
      expect(session.kind).toBe('session');
    }
    expect(resolver.known('GET', `Bearer ${s.jwt}`, undefined)?.app_id).toBe(s.appId);
    expect(counted.calls).toEqual([]);

    const fresh = await signIn(s.appId, 'lookup-once@example.com');
    counted.reset();
    await resolver(hostRequest({ authorization: `Bearer ${fresh.token}` }));
    await resolver(hostRequest({ authorization: `Bearer ${fresh.token}` }));
    expect(counted.calls.filter((c) => c.startsWith('sessions.'))).toEqual([
      'sessions.appIdByTokenHash',
      'sessions.findByTokenHash',
      'sessions.findByTokenHash',
    ]);
  });

  it('a made-up aud loads no signing keys, and a made-up token’s App is never remembered', async () => {
    const resolver = hostSessionResolver(latchkey, {});
    const madeUp = withAudience(apps[0]!.jwt, 'app_never_created');
    for (let i = 0; i < 2; i++) {
      counted.reset();
      const { session } = await resolver(hostRequest({ authorization: `Bearer ${madeUp}` }));
      expect(session.kind === 'error' && session.error.errorType).toBe('invalid_session_jwt');
      expect(counted.calls).toEqual(['apps.get']);
    }
    counted.reset();
    for (let i = 0; i < 2; i++) await resolver(hostRequest({ authorization: 'Bearer lks_never_issued' }));
    expect(counted.calls).toEqual(['sessions.appIdByTokenHash', 'sessions.appIdByTokenHash']);
  });

  it('an expired or oversized JWT cookie beside the token: expiry swaps it, anything else is answered', async () => {
    const s = apps[0]!;
    const resolver = hostSessionResolver(latchkey, { cookies: true });
    const oversized = `${s.jwt}${'A'.repeat(8001)}`;
    const { session } = await resolver(
      hostRequest({ cookie: `__Host-latchkey_session=${s.token}; __Host-latchkey_session_jwt=${oversized}` }),
    );
    expect(session.kind === 'error' && session.error.errorType).toBe('invalid_field');
  });
});

describe('a storage that fails while naming the App', () => {
  it('is a fault of the server (thrown), not a 401 for the client', async () => {
    const latchkey = createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET });
    const { app_id } = await latchkey.apps.create({ name: 'Down' });
    const { user_id } = await latchkey.users.create(app_id, { email: 'down@example.com' });
    const issued = await latchkey.sessions.issue(app_id, user_id, factor('down@example.com'), {
      session_expires_in: 60,
    });
    const down = {
      sessions: latchkey.sessions,
      apps: {
        ...latchkey.apps,
        get: async () => {
          throw new Error('storage down');
        },
      },
    };
    await expect(
      hostSessionResolver(down, {})(hostRequest({ authorization: `Bearer ${issued.session_jwt}` })),
    ).rejects.toThrow('storage down');
  });
});
