import { describe, expect, it } from 'vitest';
import { isAllowedRedirect } from '../src/index.js';
import { appWithSettings, expectErrorShape, testApp } from './helpers.js';

const LOGIN = 'https://app.example.com/auth/login';
const SIGNUP = 'https://app.example.com/auth/signup';

async function setup(
  redirects: Record<string, unknown> = {
    login: [LOGIN],
    signup: [SIGNUP],
    default_login: LOGIN,
    default_signup: SIGNUP,
  },
) {
  const { latchkey, clock, sender, t } = await appWithSettings({ redirect_urls: redirects });
  const lastLink = (to: string) => {
    const m = sender.sent.filter((x) => x.to === to && x.kind === 'magic_link').at(-1);
    if (!m?.url) throw new Error(`no link sent to ${to}`);
    return { url: new URL(m.url), message: m };
  };
  return { t, latchkey, clock, sender, lastLink };
}

const tokenOf = (url: URL) => url.searchParams.get('token')!;

describe('magic links', () => {
  it('registers a new email, then logs it in, each through its own base URL', async () => {
    const { t, lastLink, latchkey } = await setup();
    const first = await t.call(
      'POST',
      '/v1/auth/magic_links/email/login_or_create',
      { email: 'Ml@Example.com' },
      t.public_token,
    );
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      user_id: expect.stringMatching(/^user_/),
      user_created: true,
      email_id: expect.stringMatching(/^email_/),
    });
    const signup = lastLink('ml@example.com');
    expect(`${signup.url.origin}${signup.url.pathname}`).toBe(SIGNUP);
    expect(tokenOf(signup.url)).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits
    expect(signup.message).toMatchObject({
      channel: 'email',
      kind: 'magic_link',
      subject: expect.stringContaining('Test App'),
    });
    expect(signup.message.text).toContain(signup.url.toString());
    expect(signup.message.html).toContain(signup.url.toString().replace(/&/g, '&amp;'));
    const auth = await t.call(
      'POST',
      '/v1/auth/magic_links/authenticate',
      { token: tokenOf(signup.url), session_expires_in: 60 },
      t.public_token,
    );
    expect(auth.status).toBe(200);
    expect(auth.body).toMatchObject({
      user_id: first.body.user_id,
      email_id: first.body.email_id,
      link_type: 'signup',
    });
    expect(auth.body.session.factors[0]).toMatchObject({
      type: 'magic_link',
      delivery_channel: 'email',
      method: { method_type: 'email', email: 'ml@example.com' },
    });
    expect(auth.body.session_token).toBeDefined();
    const user = await t.call('GET', `/v1/auth/users/${first.body.user_id}`);
    expect(user.body).toMatchObject({ status: 'active', emails: [{ verified: true }] });

    const second = await t.call('POST', '/v1/auth/magic_links/email/login_or_create', {
      email: 'ml@example.com',
    });
    expect(second.body).toEqual({ ...first.body, user_created: false });
    const login = lastLink('ml@example.com');
    expect(`${login.url.origin}${login.url.pathname}`).toBe(LOGIN);
    const again = await t.call('POST', '/v1/auth/magic_links/authenticate', { token: tokenOf(login.url) });
    expect(again.body).toEqual({
      user_id: first.body.user_id,
      email_id: first.body.email_id,
      method_id: first.body.email_id,
      link_type: 'login',
    });
    expect(JSON.stringify(await latchkey.storage.emails.get(t.app_id, first.body.email_id))).not.toContain(
      tokenOf(login.url),
    );
  });

  it('keeps a user pending until the link is used when verification is required', async () => {
    const { t, lastLink } = await setup();
    const res = await t.call('POST', '/v1/auth/magic_links/email/login_or_create', {
      email: 'p@example.com',
      verification_required: true,
    });
    expect((await t.call('GET', `/v1/auth/users/${res.body.user_id}`)).body.status).toBe('pending');
    // Asking again while pending sends a registration link again.
    await t.call('POST', '/v1/auth/magic_links/email/login_or_create', { email: 'p@example.com' });
    const link = lastLink('p@example.com');
    expect(link.url.pathname).toBe('/auth/signup');
    await t.call('POST', '/v1/auth/magic_links/authenticate', { token: tokenOf(link.url) });
    expect((await t.call('GET', `/v1/auth/users/${res.body.user_id}`)).body.status).toBe('active');
  });

  it('uses a requested URL on the allow-list and keeps its query', async () => {
    const { t, lastLink } = await setup({
      login: [LOGIN],
      signup: [SIGNUP, 'https://app.example.com/welcome'],
    });
    const res = await t.call('POST', '/v1/auth/magic_links/email/login_or_create', {
      email: 'q@example.com',
      signup_redirect_url: 'https://app.example.com/welcome?plan=pro&ref=mail',
    });
    expect(res.status).toBe(200);
    const { url } = lastLink('q@example.com');
    expect(url.pathname).toBe('/welcome');
    expect(url.searchParams.get('plan')).toBe('pro');
    expect(url.searchParams.get('ref')).toBe('mail');
    expect(tokenOf(url)).toHaveLength(43);
  });

  it.each([
    ['another host', 'https://evil.example.com/auth/signup'],
    ['another scheme', 'http://app.example.com/auth/signup'],
    ['userinfo trick', 'https://app.example.com@evil.example.com/auth/signup'],
    ['userinfo on the allowed host', 'https://user:pw@app.example.com/auth/signup'],
    ['path traversal', 'https://app.example.com/auth/signup/../../evil'],
    ['encoded traversal', 'https://app.example.com/auth/%2e%2e/evil'],
    ['another port', 'https://app.example.com:8443/auth/signup'],
    ['javascript:', 'javascript:alert(document.cookie)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['protocol-relative', '//evil.example.com/auth/signup'],
    ['backslash', 'https://app.example.com\\@evil.example.com/auth/signup'],
    ['longer path', 'https://app.example.com/auth/signup/extra'],
    ['not a URL', 'not a url'],
  ])('refuses a redirect URL off the allow-list: %s', async (_name, signup_redirect_url) => {
    const { t, sender, latchkey } = await setup();
    const res = await t.call('POST', '/v1/auth/magic_links/email/login_or_create', {
      email: 'r@example.com',
      signup_redirect_url,
    });
    expect(res.status).toBe(400);
    expect(expectErrorShape(res)).toMatchObject({
      error_type: 'redirect_url_not_allowed',
      error_field: 'signup_redirect_url',
    });
    expect(sender.sent).toHaveLength(0);
    expect(await latchkey.storage.emails.findByAddress(t.app_id, 'r@example.com')).toBeNull();
  });

  it('answers the spec’s error when there is no URL and no default, creating nothing', async () => {
    const { t, latchkey } = await setup({ login: [LOGIN], signup: [SIGNUP] });
    const res = await t.call('POST', '/v1/auth/magic_links/email/login_or_create', {
      email: 'n@example.com',
    });
    expect(res.status).toBe(400);
    expect(expectErrorShape(res)).toMatchObject({
      error_type: 'missing_redirect_url',
      error_field: 'signup_redirect_url',
    });
    expect(await latchkey.storage.emails.findByAddress(t.app_id, 'n@example.com')).toBeNull();
  });

  it('refuses only for the redirect of the kind it sends: a bad URL of the other kind is no error', async () => {
    // Both kinds are judged up front; the send fails only when the address's kind is refused.
    const { t, lastLink, latchkey } = await setup({ login: [LOGIN], default_login: LOGIN, signup: [SIGNUP] });
    const fresh = await t.call('POST', '/v1/auth/magic_links/email/login_or_create', {
      email: 'k@example.com',
      signup_redirect_url: SIGNUP,
      login_redirect_url: 'https://evil.example.com/auth/login',
    });
    expect(fresh.status).toBe(200);
    expect(lastLink('k@example.com').url.pathname).toBe('/auth/signup');
    await t.call('POST', '/v1/auth/magic_links/authenticate', {
      token: tokenOf(lastLink('k@example.com').url),
    });
    // Active now: a login link, though no signup URL is given and the App has no default one.
    const login = await t.call('POST', '/v1/auth/magic_links/email/login_or_create', {
      email: 'k@example.com',
    });
    expect(login.status).toBe(200);
    expect(lastLink('k@example.com').url.pathname).toBe('/auth/login');
    // A new address in the same call shape: its kind's (signup) redirect is missing, nothing created.
    const refused = await t.call('POST', '/v1/auth/magic_links/email/login_or_create', {
      email: 'j@example.com',
    });
    expect(refused.status).toBe(400);
    expect(expectErrorShape(refused)).toMatchObject({
      error_type: 'missing_redirect_url',
      error_field: 'signup_redirect_url',
    });
    expect(await latchkey.storage.emails.findByAddress(t.app_id, 'j@example.com')).toBeNull();
  });

  it('refuses a reused, expired, wrong or foreign token, each with its own error', async () => {
    const { t, clock, lastLink, latchkey } = await setup();
    await t.call('POST', '/v1/auth/magic_links/email/login_or_create', {
      email: 'e@example.com',
      signup_expiration_minutes: 5,
    });
    const token = tokenOf(lastLink('e@example.com').url);
    const other = await testApp(latchkey);
    const foreign = await other.call('POST', '/v1/auth/magic_links/authenticate', { token });
    expect(foreign.status).toBe(404);
    expect(expectErrorShape(foreign).error_type).toBe('magic_link_not_found');
    const wrong = await t.call('POST', '/v1/auth/magic_links/authenticate', {
      token: `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`,
    });
    expect(expectErrorShape(wrong).error_type).toBe('magic_link_not_found');
    clock.advance(5 * 60);
    const expired = await t.call('POST', '/v1/auth/magic_links/authenticate', { token });
    expect(expired.status).toBe(401);
    expect(expectErrorShape(expired).error_type).toBe('magic_link_expired');

    await t.call('POST', '/v1/auth/magic_links/email/login_or_create', { email: 'e@example.com' });
    const fresh = tokenOf(lastLink('e@example.com').url);
    expect((await t.call('POST', '/v1/auth/magic_links/authenticate', { token: fresh })).status).toBe(200);
    const reused = await t.call('POST', '/v1/auth/magic_links/authenticate', { token: fresh });
    expect(reused.status).toBe(401);
    expect(expectErrorShape(reused).error_type).toBe('magic_link_used');
  });

  it('lets exactly one of 20 concurrent authenticates of one token win', async () => {
    const { t, lastLink } = await setup();
    await t.call('POST', '/v1/auth/magic_links/email/login_or_create', { email: 'c@example.com' });
    const token = tokenOf(lastLink('c@example.com').url);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.call('POST', '/v1/auth/magic_links/authenticate', { token })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.body.error_type === 'magic_link_used')).toHaveLength(19);
  });

  it('keeps expiry minutes within 5–10080, 60 by default', async () => {
    const { t, clock, lastLink } = await setup();
    for (const [field, value] of [
      ['login_expiration_minutes', 4],
      ['signup_expiration_minutes', 10_081],
      ['login_expiration_minutes', 0],
      ['signup_expiration_minutes', 7.5],
    ] as const) {
      const res = await t.call('POST', '/v1/auth/magic_links/email/login_or_create', {
        email: 'x@example.com',
        [field]: value,
      });
      expect(res.status).toBe(400);
      expect(expectErrorShape(res)).toMatchObject({ error_type: 'invalid_field', error_field: field });
    }
    await t.call('POST', '/v1/auth/magic_links/email/login_or_create', { email: 'd@example.com' });
    const token = tokenOf(lastLink('d@example.com').url);
    clock.advance(59 * 60 + 59);
    expect((await t.call('POST', '/v1/auth/magic_links/authenticate', { token })).status).toBe(200);
  });

  it('rate-limits sending per email', async () => {
    const { t } = await setup();
    for (let i = 0; i < 5; i++) {
      expect(
        (await t.call('POST', '/v1/auth/magic_links/email/login_or_create', { email: 'rl@example.com' }))
          .status,
      ).toBe(200);
    }
    const limited = await t.call('POST', '/v1/auth/magic_links/email/login_or_create', {
      email: 'rl@example.com',
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('matches the device fingerprint when the App asks', async () => {
    const { t, latchkey, lastLink } = await setup();
    const app = await latchkey.apps.get(t.app_id);
    await latchkey.apps.updateSettings(t.app_id, {
      ...app.settings,
      magic_links: { device_fingerprint_match: 'ip' },
    });
    await t.call('POST', '/v1/auth/magic_links/email/login_or_create', {
      email: 'f@example.com',
      device_fingerprint: { ip: '192.0.2.5' },
    });
    const token = tokenOf(lastLink('f@example.com').url);
    const res = await t.call('POST', '/v1/auth/magic_links/authenticate', {
      token,
      device_fingerprint: { ip: '192.0.2.6' },
    });
    expect(res.status).toBe(401);
    expect(expectErrorShape(res).error_type).toBe('device_fingerprint_mismatch');
    // The wrong device did not spend the link: its owner still signs in with it.
    const owner = await t.call('POST', '/v1/auth/magic_links/authenticate', {
      token,
      device_fingerprint: { ip: '192.0.2.5' },
    });
    expect(owner.status).toBe(200);
  });

  it('counts wrong devices: after magic_links.max_attempts the link is dead, even for the right device', async () => {
    const { t, latchkey, lastLink } = await setup();
    const app = await latchkey.apps.get(t.app_id);
    await latchkey.apps.updateSettings(t.app_id, {
      ...app.settings,
      magic_links: { device_fingerprint_match: 'ip', max_attempts: 3 },
    });
    await t.call('POST', '/v1/auth/magic_links/email/login_or_create', {
      email: 'g@example.com',
      device_fingerprint: { ip: '192.0.2.5' },
    });
    const token = tokenOf(lastLink('g@example.com').url);
    const tries = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.call('POST', '/v1/auth/magic_links/authenticate', {
          token,
          device_fingerprint: { ip: `10.0.0.${i}` },
        }),
      ),
    );
    const types = tries.map((r) => expectErrorShape(r).error_type);
    expect(types.filter((x) => x === 'device_fingerprint_mismatch')).toHaveLength(3);
    expect(types.filter((x) => x === 'magic_link_too_many_attempts')).toHaveLength(3);
    const owner = await t.call('POST', '/v1/auth/magic_links/authenticate', {
      token,
      device_fingerprint: { ip: '192.0.2.5' },
    });
    expect(expectErrorShape(owner).error_type).toBe('magic_link_too_many_attempts');
  });

  it('escapes values in the HTML email', async () => {
    const { latchkey, sender, lastLink } = await setup();
    const { app_id, secret_key } = await latchkey.apps.create({
      name: '<script>x</script>',
      settings: { redirect_urls: { login: [LOGIN], signup: [SIGNUP], default_signup: SIGNUP } },
    });
    await latchkey.fetch(
      new Request('http://l.test/v1/auth/magic_links/email/login_or_create', {
        method: 'POST',
        headers: { authorization: `Bearer ${secret_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'h@example.com' }),
      }),
    );
    expect(sender.sent.at(-1)!.app_id).toBe(app_id);
    expect(lastLink('h@example.com').message.html).toContain('&lt;script&gt;');
    expect(lastLink('h@example.com').message.html).not.toContain('<script>');
  });
});

describe('isAllowedRedirect', () => {
  it('allows a path prefix with /*, exact paths otherwise, and normalises host case and default ports', () => {
    expect(isAllowedRedirect('https://APP.example.com:443/auth/login', [LOGIN])).toBe(true);
    expect(isAllowedRedirect('https://app.example.com/auth/login?x=1#y', [LOGIN])).toBe(true);
    expect(isAllowedRedirect('https://app.example.com/cb/deep/path', ['https://app.example.com/cb/*'])).toBe(
      true,
    );
    expect(isAllowedRedirect('https://app.example.com/cbx', ['https://app.example.com/cb/*'])).toBe(false);
    expect(isAllowedRedirect('http://localhost:3000/magic', ['http://localhost:3000/magic'])).toBe(true);
    expect(isAllowedRedirect('http://localhost:3001/magic', ['http://localhost:3000/magic'])).toBe(false);
  });

  it('refuses encoded slashes, backslashes and dot-segments below a wildcard path (issue 14 point 9)', () => {
    const allowed = ['https://c.example/cb/*'];
    for (const path of [
      '/cb/..%2fadmin',
      '/cb/..%2Fadmin',
      '/cb/%2e%2e%2fadmin',
      '/cb/%2E%2E%2Fadmin',
      '/cb/x%2F..%2F..%2Fadmin',
      '/cb/..%5cadmin',
      '/cb/%5C%5Cevil.example',
      '/cb/%252e%252e%252fadmin',
      '/cb/..%252fadmin',
      '/cb/%25252e%25252e%25252fadmin',
      '/cb/%2e%2e%5cadmin',
      '/cb/%2e%2e',
      '/cb/%252e%252e/admin',
      '/cb/%E0%A4%A',
    ]) {
      expect(isAllowedRedirect(`https://c.example${path}`, allowed), path).toBe(false);
    }
    for (const path of ['/cb/', '/cb/done', '/cb/a/b', '/cb/caf%C3%A9', '/cb/a%20b', '/cb/v1.2/x']) {
      expect(isAllowedRedirect(`https://c.example${path}?next=%2Fhome`, allowed), path).toBe(true);
    }
  });
});
