import { expect } from 'vitest';
import {
  type AppSettingsInput,
  createLatchkey,
  type EventRecord,
  type Latchkey,
  type LatchkeyOptions,
  type Storage,
} from '../../src/index.js';
import { capturingSender, TEST_SECRET, type TestApp, testApp } from '../helpers.js';
import type { Backend } from '../storage-backends.js';

/**
 * A Latchkey with OAuth on a test backend, and the calls an OAuth test makes through its HTTP API:
 * start, the provider's redirect replayed onto the callback, authenticate.
 */

/** Latchkey's callback URL as the providers are told it: requests to it go to `latchkey.fetch`. */
export const CALLBACK_URL = 'http://latchkey.test/v1/auth/oauth/callback';
export const LOGIN_URL = 'https://app.example.com/oauth/login';
export const SIGNUP_URL = 'https://app.example.com/oauth/signup';

/**
 * The system clock, moved forward by hand: ID tokens from a real provider carry real times, and
 * Latchkey's state and token expiries still need a clock a test can advance.
 */
export function shiftedClock() {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance: (seconds: number) => {
      offset += seconds * 1000;
    },
    /** Back to the system time (tests that move the clock leave it as they found it). */
    reset: () => {
      offset = 0;
    },
  };
}

/**
 * The App settings of an OAuth test: its redirect allow-lists, rate limits out of the way. The
 * providers are written as JSON would send them (the settings write is what checks them).
 */
export const appSettings = (providers: Record<string, unknown>): AppSettingsInput => ({
  redirect_urls: { login: [LOGIN_URL], signup: [SIGNUP_URL] },
  oauth: { providers: providers as NonNullable<AppSettingsInput['oauth']>['providers'] },
  rate_limits: {
    public_routes: {
      verify: { limit: 100_000, window_seconds: 60 },
      send: { limit: 100_000, window_seconds: 60 },
    },
  },
});

export interface Reply {
  status: number;
  body: any;
  headers: Headers;
  /** The Location of a redirect, parsed. */
  location: URL | null;
}

async function reply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {}
  const location = res.headers.get('location');
  return { status: res.status, body, headers: res.headers, location: location ? new URL(location) : null };
}

export interface OAuthHarness {
  storage: Storage;
  latchkey: Latchkey;
  clock: ReturnType<typeof shiftedClock>;
  sender: ReturnType<typeof capturingSender>;
  /** Every event the Latchkey emitted, oldest first. */
  events: EventRecord[];
  /** A new App with these providers configured (and the test redirect allow-lists). */
  app(providers: Record<string, unknown>): Promise<OAuthApp>;
  dispose(): Promise<void>;
}

export interface OAuthApp extends TestApp {
  /** `GET …/start` with the public token (unless `public_token` is given, or null for none). */
  start(providerId: string, query?: Record<string, string | null>): Promise<Reply>;
  /** Sends the provider's redirect (to CALLBACK_URL) to Latchkey's callback, by GET. */
  callback(providerRedirect: URL | string): Promise<Reply>;
  /** `POST /v1/auth/oauth/authenticate` with the public token. */
  authenticate(token: string, extra?: Record<string, unknown>, key?: string | null): Promise<Reply>;
  /** start → the provider (`signIn`) → callback, asserting the start's redirect. */
  signIn(
    providerId: string,
    provider: (authorizationUrl: URL) => Promise<URL>,
    query?: Record<string, string | null>,
  ): Promise<Reply>;
  /** The users created, links made and emails verified so far, read from the App's event log. */
  counts(): Promise<{ users: number; links: number; verifiedEmails: number }>;
  getUser(userId: string): Promise<any>;
}

export async function oauthHarness(
  backend: Backend,
  over: Partial<LatchkeyOptions> = {},
): Promise<OAuthHarness> {
  const { storage, dispose } = await backend.open();
  const clock = shiftedClock();
  const sender = capturingSender();
  const latchkey = createLatchkey({
    storage,
    secret: TEST_SECRET,
    clock,
    sender,
    oauth: { callbackUrl: CALLBACK_URL, allowInsecureIssuers: true },
    ...over,
  });
  const events: EventRecord[] = [];
  latchkey.events.on('*', (e) => {
    events.push(e);
  });
  return {
    storage,
    latchkey,
    clock,
    sender,
    events,
    async app(providers) {
      const t = await testApp(latchkey);
      await latchkey.apps.updateSettings(t.app_id, appSettings(providers));
      return oauthApp(t, storage);
    },
    dispose: async () => {
      await latchkey.close?.();
      await dispose();
    },
  };
}

export function oauthApp(t: TestApp, storage: Storage): OAuthApp {
  const get = async (path: string) =>
    reply(await t.latchkey.fetch(new Request(`http://latchkey.test${path}`)));
  const start: OAuthApp['start'] = (providerId, query = {}) => {
    const q = new URLSearchParams();
    const all: Record<string, string | null> = {
      public_token: t.public_token,
      login_redirect_url: LOGIN_URL,
      signup_redirect_url: SIGNUP_URL,
      ...query,
    };
    for (const [k, v] of Object.entries(all)) if (v !== null) q.set(k, v);
    return get(`/v1/auth/oauth/${encodeURIComponent(providerId)}/start?${q}`);
  };
  const callback: OAuthApp['callback'] = (providerRedirect) => {
    const url = new URL(providerRedirect);
    expect(`${url.origin}${url.pathname}`).toBe(CALLBACK_URL);
    return get(`${url.pathname}${url.search}`);
  };
  const authenticate: OAuthApp['authenticate'] = async (token, extra = {}, key = t.public_token) => {
    const res = await t.call('POST', '/v1/auth/oauth/authenticate', { token, ...extra }, key);
    return { ...res, location: null };
  };
  const countEvents = async (type: EventRecord['type']) =>
    (await storage.events.list(t.app_id, { type, limit: 10_000 })).length;
  return {
    ...t,
    start,
    callback,
    authenticate,
    async signIn(providerId, provider, query) {
      const started = await start(providerId, query);
      expect(started.status, JSON.stringify(started.body)).toBe(302);
      return callback(await provider(started.location!));
    },
    async counts() {
      return {
        users: await countEvents('user.created'),
        links: (await countEvents('user.oauth_linked')) - (await countEvents('user.oauth_unlinked')),
        verifiedEmails: await countEvents('email.verified'),
      };
    },
    async getUser(userId) {
      const res = await t.call('GET', `/v1/auth/users/${userId}`);
      expect(res.status).toBe(200);
      return res.body;
    },
  };
}

/** The Latchkey token a successful callback's redirect carries (asserting it is one). */
export function tokenOf(redirect: Reply): string {
  expect(redirect.status, JSON.stringify(redirect.body)).toBe(302);
  const q = redirect.location!.searchParams;
  expect(q.get('error'), q.get('error_description') ?? '').toBeNull();
  expect(q.get('token_type')).toBe('oauth');
  return q.get('token')!;
}

/** Asserts a callback's redirect is the documented failure: to the login URL, an error, no token. */
export function expectFailedRedirect(redirect: Reply, error = 'oauth_provider_error') {
  expect(redirect.status, JSON.stringify(redirect.body)).toBe(302);
  const url = redirect.location!;
  expect(`${url.origin}${url.pathname}`).toBe(LOGIN_URL);
  expect(url.searchParams.get('error')).toBe(error);
  expect(url.searchParams.has('token')).toBe(false);
  expect(url.searchParams.has('token_type')).toBe(false);
  return url;
}
