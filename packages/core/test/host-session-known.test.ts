import { memoryStorage } from '@latchkey/memory';
import { describe, expect, it } from 'vitest';
import { bearerCredential, bearerJwt } from '../src/host-sessions/credentials.js';
import { createLatchkey, hostSessionResolver } from '../src/index.js';
import { TEST_SECRET } from './helpers.js';

const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln';

describe('bearerJwt', () => {
  it('reads the JWT a bearer carries, as bearerCredential does, and nothing else', () => {
    for (const header of [`Bearer ${JWT}`, `bearer   ${JWT}  `, `BEARER\t${JWT}`]) {
      expect(bearerJwt(header)).toBe(JWT);
      expect(bearerCredential(header)).toEqual({ session_jwt: JWT });
    }
    for (const header of [
      undefined,
      null,
      '',
      'Bearer lks_token',
      `Basic ${JWT}`,
      `Bearer ${JWT} x`,
      `Bearer`,
    ]) {
      expect(bearerJwt(header)).toBeUndefined();
    }
  });
});

describe('hostSessionResolver(…).known', () => {
  it('answers a JWT verified before, from a bearer or (GET/HEAD, cookies on) the JWT cookie, and nothing else', async () => {
    const latchkey = createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET });
    await latchkey.sessions.watchRevocations();
    const { app_id } = await latchkey.apps.create({ name: 'known' });
    const { user_id } = await latchkey.users.create(app_id, { email: 'known@example.com' });
    const issued = await latchkey.sessions.issue(
      app_id,
      user_id,
      {
        type: 'otp',
        delivery_channel: 'email',
        method: {
          method_id: 'email_k',
          method_type: 'email',
          email_id: 'email_k',
          email: 'known@example.com',
          last_verified_at: 0,
        },
      },
      { session_expires_in: 60 },
    );
    const jwt = issued.session_jwt as string;
    const cookie = `latchkey_session_jwt=${jwt}`;
    const jwtMode = hostSessionResolver(latchkey, { app_id, cookies: true });
    // Not verified yet: the async path decides.
    expect(jwtMode.known('GET', `Bearer ${jwt}`, undefined)).toBeUndefined();
    await latchkey.sessions.check({ app_id, session_jwt: jwt, mode: 'jwt' });

    expect(jwtMode.known('GET', `Bearer ${jwt}`, undefined)?.user_id).toBe(user_id);
    // Spelled otherwise than `Bearer <jwt>`, the header is still read (by its full grammar).
    expect(jwtMode.known('GET', `bearer   ${jwt}`, undefined)?.user_id).toBe(user_id);
    expect(jwtMode.known('GET', `Bearer ${jwt} `, undefined)).toBeUndefined();
    const local = { hostname: 'localhost' };
    const prod = { hostname: 'shop.example.com' };
    expect(jwtMode.known('HEAD', undefined, cookie, local)?.user_id).toBe(user_id);
    expect(jwtMode.known('GET', undefined, `__Host-latchkey_session_jwt=${jwt}`, prod)?.user_id).toBe(
      user_id,
    );
    // The names follow the host: a bare cookie on a production host, a prefixed one on localhost.
    expect(jwtMode.known('GET', undefined, cookie, prod)).toBeUndefined();
    expect(jwtMode.known('GET', undefined, `__Host-latchkey_session_jwt=${jwt}`, local)).toBeUndefined();
    // A name sent twice goes to the async path, which refuses it.
    expect(jwtMode.known('GET', undefined, `${cookie}; ${cookie}`, local)).toBeUndefined();
    expect(jwtMode.known('GET', undefined, `${cookie}; latchkey_session_jwt=x`, local)).toBeUndefined();
    // No app_id: the JWT's own App.
    expect(hostSessionResolver(latchkey, {}).known('GET', `Bearer ${jwt}`, undefined)?.app_id).toBe(app_id);
    // A state-changing request by cookie goes through the CSRF check; a bearer that is not this JWT
    // wins over the cookie; token mode always reads storage.
    expect(jwtMode.known('POST', undefined, cookie, local)).toBeUndefined();
    expect(jwtMode.known('GET', `Bearer ${issued.session_token}`, cookie, local)).toBeUndefined();
    expect(hostSessionResolver(latchkey, { app_id }).known('GET', undefined, cookie, local)).toBeUndefined();
    expect(
      hostSessionResolver(latchkey, { app_id, mode: 'token' }).known('GET', `Bearer ${jwt}`, undefined),
    ).toBeUndefined();
    const other = await latchkey.apps.create({ name: 'other' });
    expect(
      hostSessionResolver(latchkey, { app_id: other.app_id }).known('GET', `Bearer ${jwt}`, undefined),
    ).toBeUndefined();
  });
});
