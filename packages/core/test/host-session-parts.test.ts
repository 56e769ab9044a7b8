import { describe, expect, it } from 'vitest';
import {
  cookieSite,
  cookiesForApiAnswer,
  crossSiteVerdict,
  jwtAudience,
  readSessionCookies,
  resolveCookieOptions,
  sessionCookieNames,
  sessionCookies,
} from '../src/index.js';

const OWN = 'http://shop.example.com';
const verdict = (over: Partial<Parameters<typeof crossSiteVerdict>[0]>) =>
  crossSiteVerdict({
    method: 'POST',
    origin: undefined,
    secFetchSite: undefined,
    ownOrigin: OWN,
    allowedOrigins: [],
    ...over,
  });

describe('crossSiteVerdict', () => {
  it('reads the method in any case: only GET, HEAD and OPTIONS are safe', () => {
    for (const method of ['get', 'Head', 'options'])
      expect(verdict({ method, origin: 'https://evil.example' }), method).toBe('allowed');
    for (const method of ['post', 'Put', 'patch', 'delete'])
      expect(verdict({ method, origin: 'https://evil.example' }), method).toBe('refused');
  });

  it('Origin: null says nothing, so Sec-Fetch-Site decides; same-site is not same-origin', () => {
    expect(verdict({ origin: 'null', secFetchSite: 'same-origin' })).toBe('allowed');
    expect(verdict({ origin: 'null', secFetchSite: 'cross-site' })).toBe('refused');
    expect(verdict({ origin: 'null' })).toBe('refused');
    expect(verdict({ secFetchSite: 'same-site' })).toBe('refused');
    expect(verdict({ secFetchSite: 'none' })).toBe('allowed');
  });

  it('scheme_mismatch only for https:// of the exact host the host sees over http://', () => {
    expect(verdict({ origin: 'https://shop.example.com' })).toBe('scheme_mismatch');
    expect(verdict({ referer: 'https://shop.example.com/a?b' })).toBe('scheme_mismatch');
    // Not https, or not the own host seen over http: the ordinary refusal.
    expect(verdict({ origin: 'file:///shop.example.com' })).toBe('refused');
    expect(verdict({ origin: 'https:///shop.example.com', ownOrigin: 'https://shop.example.com' })).toBe(
      'refused',
    );
    expect(verdict({ origin: 'https://shop.example.com.evil.example' })).toBe('refused');
    // A Referer counts only without an Origin.
    expect(verdict({ origin: 'https://evil.example', referer: 'https://shop.example.com/' })).toBe('refused');
  });
});

describe('cookies', () => {
  const options = resolveCookieOptions(true)!;

  it('cookieSite: https from the scheme alone', () => {
    expect(cookieSite('localhost', 'https', () => undefined)).toEqual({ hostname: 'localhost', https: true });
    expect(cookieSite('localhost', 'http', () => undefined)).toEqual({ hostname: 'localhost', https: false });
  });

  it('a session already past its end gets Max-Age=0, never a negative one', () => {
    const [token] = sessionCookies(
      options,
      { hostname: 'shop.example.com', https: true },
      { session_token: 'lks_x', expiresAt: Math.floor(Date.now() / 1000) - 60 },
    );
    expect(token).toMatch(/; Max-Age=0;/);
  });

  it("clears the cookies after a revoke that ended the caller's own session, not another device's", () => {
    const site = { hostname: 'shop.example.com', https: true };
    const answer = (path: string, body: Record<string, unknown>) =>
      cookiesForApiAnswer(options, site, path, JSON.stringify(body));
    const revoke = { message: 'Session revoked.', session_id: 'session_a', user_id: 'user_a' };
    expect(answer('/v1/auth/sessions/revoke', { ...revoke, current: true })).toHaveLength(2);
    expect(answer('/v1/auth/sessions/revoke', { ...revoke, current: false })).toEqual([]);
    const all = { message: '2 sessions revoked.', user_id: 'user_a', session_ids: ['session_a'] };
    expect(answer('/v1/auth/sessions/revoke_all', { ...all, current: true })).toHaveLength(2);
    expect(answer('/v1/auth/sessions/revoke_all', { ...all, current: false })).toEqual([]);
    for (const cleared of answer('/v1/auth/sessions/revoke_all', { ...all, current: true }))
      expect(cleared).toMatch(/Max-Age=0/);
  });

  it('an API answer whose session_jwt is not a string sets no cookie', () => {
    const site = { hostname: 'shop.example.com', https: true };
    const expires_at = Math.floor(Date.now() / 1000) + 60;
    for (const session_jwt of [null, 42, { a: 1 }])
      expect(
        cookiesForApiAnswer(
          options,
          site,
          '/v1/auth/sessions/authenticate',
          JSON.stringify({ session_jwt, session: { expires_at } }),
        ),
      ).toEqual([]);
    expect(
      cookiesForApiAnswer(
        options,
        site,
        '/v1/auth/sessions/authenticate',
        JSON.stringify({ session_jwt: 'a.b.c', session: { expires_at } }),
      ),
    ).toHaveLength(1);
  });
});

describe('readSessionCookies', () => {
  const names = sessionCookieNames({}, 'shop.example.com');

  it('finds both cookies, decoded, and says when either name comes twice', () => {
    expect(
      readSessionCookies('__Host-latchkey_session=a%20b; __Host-latchkey_session_jwt="x.y.z"', names),
    ).toEqual({
      token: 'a b',
      jwt: 'x.y.z',
      repeated: false,
    });
    expect(readSessionCookies('__Host-latchkey_session=a; __Host-latchkey_session=b', names)).toEqual({
      token: 'a',
      jwt: undefined,
      repeated: true,
    });
    expect(
      readSessionCookies('__Host-latchkey_session_jwt=; __Host-latchkey_session_jwt=b', names).repeated,
    ).toBe(true);
    expect(readSessionCookies('__Host-latchkey_session=; __Host-latchkey_session_jwt=', names)).toEqual({
      token: undefined,
      jwt: undefined,
      repeated: false,
    });
    expect(readSessionCookies(undefined, names)).toEqual({
      token: undefined,
      jwt: undefined,
      repeated: false,
    });
  });
});

describe('jwtAudience', () => {
  const jwt = (payload: unknown) =>
    `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.c2ln`;

  it('one string audience of at most 100 characters, else none', () => {
    expect(jwtAudience(jwt({ aud: 'app_1' }))).toBe('app_1');
    expect(jwtAudience(jwt({ aud: ['app_1'] }))).toBe('app_1');
    expect(jwtAudience(jwt({ aud: 'a'.repeat(100) }))).toBe('a'.repeat(100));
    for (const aud of [['app_1', 'app_2'], [], '', 'a'.repeat(101), 7, null, undefined])
      expect(jwtAudience(jwt({ aud })), JSON.stringify(aud)).toBeUndefined();
    for (const text of ['lks_token', 'a.b', 'a.!!!.c', 'a.bm90IGpzb24.c'])
      expect(jwtAudience(text), text).toBeUndefined();
  });
});
