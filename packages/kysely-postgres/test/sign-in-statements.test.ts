import { createHmac } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import {
  createLatchkey,
  createPasswordHasher,
  type Latchkey,
  type OutboundMessage,
  type Storage,
} from '@latchkey/core';
import { Wallet } from 'ethers';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OidcProviderServer,
  startOidcProvider,
} from '../../core/test/oauth-peers/oidc-provider-server.js';
import { kyselyStorage } from '../src/index.js';
import { DATABASE_URL, randomSchema } from './targets.js';

/**
 * What each sign-in request costs the database, counted at the driver (every query a pg Client
 * or PGlite sends is one round trip; BEGIN, COMMIT and ROLLBACK are round trips but not
 * statements). The budgets are the counts of docs/benchmarks.md's statements table: a change
 * that adds a statement to a sign-in path fails here, so the count cannot creep back up.
 */
interface Count {
  statements: number;
  round_trips: number;
  sql: string[];
  /** Statements sent without a prepared statement's name (on Postgres; PGlite names none). */
  unnamed: string[];
}

const CONTROL = /^\s*(begin|start transaction|commit|rollback|savepoint|release)\b/i;

function counter() {
  let on = false;
  let seen: string[] = [];
  let unnamed: string[] = [];
  return {
    note(text: string, named = false) {
      if (!on) return;
      seen.push(text);
      if (!named && !CONTROL.test(text)) unnamed.push(text);
    },
    async during(fn: () => Promise<unknown>): Promise<Count> {
      seen = [];
      unnamed = [];
      on = true;
      try {
        await fn();
      } finally {
        on = false;
      }
      return {
        statements: seen.filter((s) => !CONTROL.test(s)).length,
        round_trips: seen.length,
        sql: seen,
        unnamed,
      };
    },
  };
}

type Counter = ReturnType<typeof counter>;

interface Opened {
  storage: Storage;
  close(): Promise<void>;
}

/** Postgres: every query any pg Client of the Pool sends is noted (prepared statements too). */
async function onPostgres(c: Counter): Promise<Opened> {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
  const schema = randomSchema();
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    const config =
      typeof first === 'string' ? { text: first } : (first as { text?: string; name?: string } | null);
    if (config?.text) c.note(config.text, config.name !== undefined);
    return original.apply(this, args);
  } as typeof pg.Client.prototype.query;
  const storage = await kyselyStorage({ pool, schema, migrate: true });
  return {
    storage,
    async close() {
      pg.Client.prototype.query = original as typeof pg.Client.prototype.query;
      await storage.close();
      await pool.query(`drop schema if exists "${schema}" cascade`);
      await pool.end();
    },
  };
}

/** PGlite: its one connection's `query` is the round trip. */
async function onPglite(c: Counter): Promise<Opened> {
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite: PGlite = await PGlite.create();
  const query = pglite.query.bind(pglite);
  pglite.query = ((text: string, ...rest: unknown[]) => {
    c.note(text);
    return (query as (...a: unknown[]) => unknown)(text, ...rest);
  }) as PGlite['query'];
  const storage = await kyselyStorage({ pglite, schema: randomSchema(), migrate: true });
  return {
    storage,
    async close() {
      await storage.close();
      await pglite.close();
    },
  };
}

/** RFC 6238 with SHA-1, 6 digits, 30-second steps, written here as the oracle. */
function totpCode(base32: string, at: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const ch of base32.replace(/=+$/, '')) bits += alphabet.indexOf(ch).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => Number.parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** Latchkey's callback as the provider is told it: the test replays the provider's redirect onto it. */
const CALLBACK_URL = 'http://latchkey.test/v1/auth/oauth/callback';
const OIDC_CLIENT = { client_id: 'statements', client_secret: 'statements-oidc-client-secret-0123456789' };
const PASSWORD = 'plum-ledger-quartz-harbor-91';

const targets = [
  { name: 'pglite', open: onPglite },
  ...(DATABASE_URL ? [{ name: 'postgres', open: onPostgres }] : []),
];

describe.each(targets)('statements per sign-in request on $name', ({ name, open }) => {
  const c = counter();
  let db: Opened;
  let latchkey: Latchkey;
  let publicToken: string;
  let secretKey: string;
  let appId: string;
  const sent: OutboundMessage[] = [];
  const table: Record<string, { statements: number; round_trips: number }> = {};
  let op: OidcProviderServer;

  beforeAll(async () => {
    db = await open(c);
    op = await startOidcProvider({
      clients: [{ ...OIDC_CLIENT, redirect_uris: [CALLBACK_URL] }],
      claimsInIdToken: true,
    });
    latchkey = createLatchkey({
      storage: db.storage,
      secret: 'statements-test-secret-0123456789abcdef',
      sender: { send: async (m) => void sent.push(m) },
      // The real Argon2id at cheap costs: the statements are the same at any cost.
      passwordHasher: createPasswordHasher({ params: { memoryKiB: 64, iterations: 1, parallelism: 1 } }),
      oauth: { callbackUrl: CALLBACK_URL, allowInsecureIssuers: true },
    });
    const app = await latchkey.apps.create({
      name: 'Statements',
      settings: {
        webauthn: { allowed_domains: ['localhost'] },
        redirect_urls: {
          login: ['https://x.test/l'],
          signup: ['https://x.test/s'],
          default_login: 'https://x.test/l',
          default_signup: 'https://x.test/s',
        },
        passwords: { public_signup: true },
        oauth: { providers: { op: { type: 'oidc', issuer: op.issuer, ...OIDC_CLIENT } } },
      },
    });
    publicToken = app.public_token;
    appId = app.app_id;
    secretKey = app.secret_key;
    // Warm: the App is read and cached, the signing key made, before anything is counted.
    await call('POST', '/v1/auth/otps/email/login_or_create', { email: 'warm@example.com' });
    await call('POST', '/v1/auth/otps/verify', {
      method_id: (await call('POST', '/v1/auth/otps/email/send', { email: 'warm@example.com' })).method_id,
      otp: sent.at(-1)!.code,
      session_expires_in: 60,
    });
  });
  afterAll(async () => {
    console.log(`statements per request on ${name}:\n${JSON.stringify(table, null, 1)}`);
    await op?.close();
    await db?.close();
  });

  function send(method: string, route: string, body: unknown, key = publicToken) {
    return latchkey.fetch(
      new Request(`http://latchkey.test${route}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
      { clientIp: '203.0.113.9' },
    );
  }

  async function call(method: string, route: string, body: unknown, key = publicToken) {
    const res = await send(method, route, body, key);
    const json = (await res.json()) as Record<string, string>;
    if (res.status !== 200) throw new Error(`${route} → ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  /** A GET that must redirect (OAuth's start and callback): its Location. */
  async function redirected(url: string | URL): Promise<URL> {
    const res = await latchkey.fetch(new Request(url));
    const location = res.headers.get('location');
    if (res.status !== 302 || !location) throw new Error(`${url} → ${res.status} ${await res.text()}`);
    return new URL(location);
  }

  /**
   * Counts one request, checks it answered, and holds it to its budget. `prepared`: on Postgres,
   * every statement it sends goes as a named prepared statement (compiled once, parsed once per
   * connection).
   */
  async function expectBudget(
    label: string,
    budget: { statements: number; round_trips: number },
    request: () => Promise<unknown>,
    prepared = false,
  ) {
    const count = await c.during(request);
    if (prepared && name === 'postgres') expect.soft(count.unnamed, `${label}: not prepared`).toEqual([]);
    table[label] = { statements: count.statements, round_trips: count.round_trips };
    if (process.env.SHOW_SQL) console.log(label, count.sql);
    expect
      .soft({ statements: count.statements, round_trips: count.round_trips }, count.sql.join('\n'))
      .toEqual(budget);
  }

  it('OTP: send to a new address, send again, verify into a session', async () => {
    let method_id = '';
    await expectBudget(
      'otps/email/login_or_create (new user)',
      // The route's window and the send's windows in one statement (before: the route's was counted
      // on its own, before the route ran), then one statement: find-or-create of user and contact
      // with their events and, the contact being new, its code (before: a statement of its own).
      { statements: 2, round_trips: 2 },
      async () => {
        method_id = (await call('POST', '/v1/auth/otps/email/login_or_create', { email: 'a@example.com' }))
          .method_id!;
      },
      true,
    );
    // The windows (1), the find-or-create (1), the live code read (1), the code sent again.
    await expectBudget('otps/email/login_or_create (resend)', { statements: 3, round_trips: 3 }, () =>
      call('POST', '/v1/auth/otps/email/login_or_create', { email: 'a@example.com' }),
    );
    const otp = sent.at(-1)!.code!;
    const wrong = otp === '000000' ? '111111' : '000000';
    // A wrong code counts its attempt and writes its one event in the same statement.
    const failed = await c.during(() =>
      latchkey.otps
        .verify(appId, { method_id, otp: wrong })
        .catch((err: { errorType: string }) => err.errorType),
    );
    table['otps/verify, wrong code (service)'] = {
      statements: failed.statements,
      round_trips: failed.round_trips,
    };
    expect({ statements: failed.statements, round_trips: failed.round_trips }).toEqual({
      statements: 1,
      round_trips: 1,
    });
    const events = (await latchkey.events.list(appId, { type: 'sign_in.failed' })).events;
    expect(events.map((e) => e.data)).toEqual([{ method: 'otp', method_id, reason: 'mismatch' }]);
    expect((await latchkey.events.list(appId, { type: 'sign_in.locked_out' })).events).toEqual([]);
    await expectBudget(
      'otps/verify → session',
      // The contact marked verified with its event in one statement (no transaction around them).
      { statements: 5, round_trips: 5 },
      async () => {
        const r = await call('POST', '/v1/auth/otps/verify', { method_id, otp, session_expires_in: 60 });
        expect(r.session_jwt).toBeTruthy();
      },
      true,
    );
  });

  it('magic link: send to a new address, authenticate into a session', async () => {
    await expectBudget(
      'magic_links/email/login_or_create (new user)',
      // The route's and the send's windows in one statement, one statement that creates user and
      // contact with their events and the link (no read of the address first, no insert after).
      { statements: 2, round_trips: 2 },
      () => call('POST', '/v1/auth/magic_links/email/login_or_create', { email: 'm@example.com' }),
      true,
    );
    const linkPath = () => {
      const url = new URL(sent.at(-1)!.url!);
      return url.origin + url.pathname;
    };
    expect(linkPath()).toBe('https://x.test/s');
    const token = new URL(sent.at(-1)!.url!).searchParams.get('token')!;
    await expectBudget(
      'magic_links/authenticate → session',
      // The contact marked verified with its event in one statement (no transaction around them).
      { statements: 5, round_trips: 5 },
      async () => {
        const r = await call('POST', '/v1/auth/magic_links/authenticate', { token, session_expires_in: 60 });
        expect(r.session_jwt).toBeTruthy();
      },
      true,
    );
    // The user is active now: a login link, its kind known from the same find-or-create (before,
    // the address and then its user were read first: 6 statements).
    await expectBudget(
      'magic_links/email/login_or_create (returning user)',
      // The windows (1), the find-or-create that answers the user's status (1), the link (1).
      { statements: 3, round_trips: 3 },
      () => call('POST', '/v1/auth/magic_links/email/login_or_create', { email: 'm@example.com' }),
      true,
    );
    expect(linkPath()).toBe('https://x.test/l');
  });

  it('TOTP: authenticate into a session', async () => {
    const { user_id } = await call('POST', '/v1/auth/users', {}, secretKey);
    const { secret } = await call('POST', '/v1/auth/totps/create', { user_id }, secretKey);
    const now = Math.floor(Date.now() / 1000);
    await call('POST', '/v1/auth/totps/verify', { user_id, totp_code: totpCode(secret!, now) }, secretKey);
    await expectBudget(
      'totps/authenticate → session',
      { statements: 5, round_trips: 5 },
      async () => {
        const r = await call(
          'POST',
          '/v1/auth/totps/authenticate',
          { user_id, totp_code: totpCode(secret!, now + 30), session_expires_in: 60 },
          secretKey,
        );
        expect(r.session_jwt).toBeTruthy();
      },
      true,
    );
  });

  it('wallet: challenge, verify into a session (returning wallet)', async () => {
    const wallet = Wallet.createRandom();
    const signIn = async () => {
      const ch = await call('POST', '/v1/auth/wallets/challenge', {
        wallet_type: 'ethereum',
        public_address: wallet.address,
      });
      return {
        wallet_type: 'ethereum',
        public_address: wallet.address,
        nonce: ch.nonce,
        signature: Buffer.from((await wallet.signMessage(ch.challenge!)).slice(2), 'hex').toString('base64'),
        session_expires_in: 60,
      };
    };
    await call('POST', '/v1/auth/wallets/verify', await signIn());
    await expectBudget(
      'wallets/challenge',
      { statements: 3, round_trips: 3 },
      () =>
        call('POST', '/v1/auth/wallets/challenge', {
          wallet_type: 'ethereum',
          public_address: wallet.address,
        }),
      true,
    );
    const body = await signIn();
    await expectBudget(
      'wallets/verify → session',
      { statements: 5, round_trips: 5 },
      async () => {
        const r = await call('POST', '/v1/auth/wallets/verify', body);
        expect(r.session_jwt).toBeTruthy();
      },
      true,
    );
  });

  it('wallets/create: a new user, the same again, a second type (issue 35)', async () => {
    const { user_id } = await call('POST', '/v1/auth/users', {}, secretKey);
    // The seed and the wallet stored together after one read (before: read, seed, wallet).
    await expectBudget(
      'wallets/create ethereum (new user: seed made too)',
      { statements: 2, round_trips: 2 },
      () => call('POST', '/v1/wallets/create', { user_id, wallet_type: 'ethereum' }, secretKey),
      true,
    );
    await expectBudget(
      'wallets/create ethereum (existing)',
      { statements: 1, round_trips: 1 },
      () => call('POST', '/v1/wallets/create', { user_id, wallet_type: 'ethereum' }, secretKey),
      true,
    );
    await expectBudget('wallets/create solana (user has a seed)', { statements: 2, round_trips: 2 }, () =>
      call('POST', '/v1/wallets/create', { user_id, wallet_type: 'solana' }, secretKey),
    );
  });

  it('users/get and wallets/list: the user with their methods and links, a page of wallets', async () => {
    const { user_id } = await call('POST', '/v1/auth/users', { email: 'read@example.com' }, secretKey);
    await call('POST', '/v1/wallets/create', { user_id, wallet_type: 'solana' }, secretKey);
    let user: { emails: { email: string }[]; wallets: { wallet_type: string }[] } | undefined;
    // The user with their lists in one statement and their OAuth links beside it, both prepared
    // (before: neither, and planning the first cost Postgres more than running it).
    await expectBudget(
      'GET users/{id}',
      { statements: 2, round_trips: 2 },
      async () => {
        const res = await latchkey.fetch(
          new Request(`http://latchkey.test/v1/auth/users/${user_id}`, {
            headers: { authorization: `Bearer ${secretKey}` },
          }),
        );
        expect(res.status).toBe(200);
        user = (await res.json()) as typeof user;
      },
      true,
    );
    expect(user?.emails.map((e) => e.email)).toEqual(['read@example.com']);
    expect(user?.wallets.map((w) => w.wallet_type)).toEqual(['solana']);
    // A page of the user's wallets: one prepared statement (before: built and planned per call).
    let page: { wallets: { id: string }[] } | undefined;
    await expectBudget(
      'GET wallets/list?user_id',
      { statements: 1, round_trips: 1 },
      async () => {
        const res = await latchkey.fetch(
          new Request(`http://latchkey.test/v1/wallets/list?user_id=${user_id}`, {
            headers: { authorization: `Bearer ${secretKey}` },
          }),
        );
        expect(res.status).toBe(200);
        page = (await res.json()) as typeof page;
      },
      true,
    );
    expect(page?.wallets).toHaveLength(1);
  });

  it('passkey: begin a discoverable sign-in', async () => {
    // The route's window, the challenge, the App's expired ones cleared: all prepared (before: the
    // challenge's two were built and planned on every begin).
    await expectBudget(
      'webauthn/authentications/begin',
      { statements: 3, round_trips: 3 },
      () => call('POST', '/v1/auth/webauthn/authentications/begin', { domain: 'localhost' }),
      true,
    );
  });

  it('password: sign up, sign in, a wrong password', async () => {
    const email = 'pw@example.com';
    await expectBudget(
      'passwords/create (public sign-up, new address)',
      // The route's window, the address read, then one transaction: user, email and password,
      // each insert with its event (before: the password's event was a statement of its own).
      { statements: 5, round_trips: 7 },
      async () => {
        const r = await call('POST', '/v1/auth/passwords/create', { email, password: PASSWORD });
        expect(r.user_id).toMatch(/^user_/);
      },
    );
    await expectBudget(
      'passwords/authenticate → session',
      // The route's window, the per-IP window, the address, its user, the lock-out's count, the
      // count cleared, the session with its event.
      { statements: 7, round_trips: 7 },
      async () => {
        const r = await call('POST', '/v1/auth/passwords/authenticate', {
          email,
          password: PASSWORD,
          session_expires_in: 60,
        });
        expect(r.session_jwt).toBeTruthy();
      },
      true,
    );
    await expectBudget(
      'passwords/authenticate, wrong password',
      // As a right one up to the count; then the failure's event in place of clear and session.
      { statements: 6, round_trips: 6 },
      async () => {
        const res = await send('POST', '/v1/auth/passwords/authenticate', {
          email,
          password: `${PASSWORD}x`,
        });
        expect(res.status).toBe(401);
        expect(((await res.json()) as { error_type: string }).error_type).toBe('invalid_credentials');
      },
    );
  });

  it('OAuth: start, callback (new user, then returning), authenticate into a session', async () => {
    op.accounts.alice = { email: 'alice.oauth@example.com', email_verified: true };
    const start = new URL('http://latchkey.test/v1/auth/oauth/op/start');
    start.searchParams.set('public_token', publicToken);
    // Warm: the provider's discovery document is fetched and kept before anything is counted.
    await redirected(start);
    const signIn = async (
      label: string,
      budget: { statements: number; round_trips: number },
      prepared: boolean,
    ) => {
      let authorize = new URL('x:');
      // The route's window, the flow's row (state, nonce, verifier).
      await expectBudget(
        'oauth/{provider}/start',
        { statements: 2, round_trips: 2 },
        async () => {
          authorize = await redirected(start);
        },
        true,
      );
      const back = await op.signInAs(authorize, 'alice');
      let landing = new URL('x:');
      await expectBudget(
        label,
        budget,
        async () => {
          landing = await redirected(back);
        },
        prepared,
      );
      expect(landing.searchParams.get('token_type')).toBe('oauth');
      return landing.searchParams.get('token')!;
    };
    // The state spent, the link looked up, then one transaction: user and email with their
    // events, the email marked verified with its event (one statement), the link with its event (before: a
    // statement of its own); then the flow's token. The transaction's are not prepared.
    const first = await signIn('oauth/callback (new user)', { statements: 7, round_trips: 9 }, false);
    // The route's window, the token spent, the link read, the session with its event.
    await expectBudget(
      'oauth/authenticate → session',
      { statements: 4, round_trips: 4 },
      async () => {
        const r = await call('POST', '/v1/auth/oauth/authenticate', { token: first, session_expires_in: 60 });
        expect(r.session_jwt).toBeTruthy();
        expect(r.user_created).toBe(true);
      },
      true,
    );
    // The state spent, the link found, the flow's token (before: none of the three prepared).
    const again = await signIn('oauth/callback (returning user)', { statements: 3, round_trips: 3 }, true);
    const r = await call('POST', '/v1/auth/oauth/authenticate', { token: again, session_expires_in: 60 });
    expect(r.user_created).toBe(false);
  });
});
