import { memoryStorage } from '@latchkey/memory';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  consoleLogger,
  createLatchkey,
  type Factor,
  hostSessionResolver,
  LatchkeyError,
  type Logger,
  type Storage,
} from '../src/index.js';
import { TEST_SECRET, testApp } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A real pino logger writing its JSON lines into an array. */
function pinoLines() {
  const lines: Array<Record<string, any>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  // pino's own type is what a host passes: it must satisfy Latchkey's.
  const typed: Logger = logger;
  return { lines, logger: typed };
}

/** Memory storage whose rate-limit counters (one window or several at once) fail like a driver. */
function failingRateLimits(err: unknown): Storage {
  const inner = memoryStorage();
  return {
    ...inner,
    rateLimits: {
      ...inner.rateLimits,
      hit: async () => {
        throw err;
      },
      hitAll: async () => {
        throw err;
      },
    },
  } as Storage;
}

const EMAIL = 'private.person@example.com';

describe('the logger option', () => {
  it('gets a failed request as (fields, message): pino writes the request id and the error, never the body', async () => {
    const { lines, logger } = pinoLines();
    const latchkey = createLatchkey({
      storage: failingRateLimits(new Error('connect ECONNREFUSED 10.0.0.7:5432')),
      secret: TEST_SECRET,
      logger,
    });
    const t = await testApp(latchkey);
    const res = await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: EMAIL }, t.public_token);
    expect(res.status).toBe(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: 'latchkey: request failed',
      request_id: res.headers.get('x-request-id'),
      err: { type: 'Error', message: 'connect ECONNREFUSED 10.0.0.7:5432' },
    });
    expect(JSON.stringify(lines)).not.toContain(EMAIL);
  });

  it('is not used for failed requests when onInternalError is given', async () => {
    const { lines, logger } = pinoLines();
    const reported: string[] = [];
    const latchkey = createLatchkey({
      storage: failingRateLimits(new Error('down')),
      secret: TEST_SECRET,
      logger,
      onInternalError: (_err, requestId) => void reported.push(requestId),
    });
    const t = await testApp(latchkey);
    const res = await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: EMAIL }, t.public_token);
    expect(reported).toEqual([res.headers.get('x-request-id')]);
    expect(lines).toEqual([]);
  });

  it('gets a failing event listener', async () => {
    const { lines, logger } = pinoLines();
    const latchkey = createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET, logger });
    latchkey.events.on('user.created', () => {
      throw new Error('listener broke');
    });
    const { app_id } = await latchkey.apps.create({ name: 'Listened' });
    await latchkey.users.create(app_id, { email: EMAIL });
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: 'latchkey: an event listener failed',
      err: { message: 'listener broke' },
    });
  });

  it("gets the webhook worker's failures, but not the storage being down (that one is retried)", async () => {
    const { lines, logger } = pinoLines();
    const inner = memoryStorage();
    let failure: unknown = new Error('claim query broke');
    const storage = {
      ...inner,
      webhooks: {
        ...inner.webhooks,
        claimDue: async () => {
          throw failure;
        },
      },
    } as Storage;
    const latchkey = createLatchkey({ storage, secret: TEST_SECRET, logger });
    const stop = latchkey.webhooks.startDelivery({ intervalMs: 10 });
    await vi.waitFor(() => expect(lines.length).toBeGreaterThan(0));
    failure = new LatchkeyError('storage_unavailable');
    const seen = lines.length;
    await new Promise((r) => setTimeout(r, 60));
    await stop();
    expect(lines.slice(0, seen).every((l) => l.msg === 'latchkey: webhook delivery failed')).toBe(true);
    expect(lines[0]).toMatchObject({ level: 50, err: { message: 'claim query broke' } });
    // At most the attempt already under way when the failure changed; none for the unavailable storage.
    expect(lines.length - seen).toBeLessThanOrEqual(1);
  });

  it("gets the host-session proxy hint once, as a warning, through the latchkey's logger", async () => {
    const { lines, logger } = pinoLines();
    const latchkey = createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET, logger });
    const { app_id } = await latchkey.apps.create({ name: 'Proxied' });
    const { user_id } = await latchkey.users.create(app_id, { email: EMAIL });
    const factor: Factor = {
      type: 'otp',
      delivery_channel: 'email',
      method: {
        method_id: 'email_x',
        method_type: 'email',
        email_id: 'email_x',
        email: EMAIL,
        last_verified_at: 0,
      },
    };
    const { session_token } = await latchkey.sessions.issue(app_id, user_id, factor, {
      session_expires_in: 60,
    });
    expect(latchkey.logger).toBe(logger);
    const resolver = hostSessionResolver(latchkey, { cookies: true });
    // The browser was on https://shop.example.com; the host, behind a TLS proxy it does not trust, sees http.
    const request = {
      method: 'POST',
      header: (name: string) =>
        ({ origin: 'https://shop.example.com', cookie: `__Host-latchkey_session=${session_token}` })[name],
      origin: 'http://shop.example.com',
      hostname: 'shop.example.com',
    };
    for (let i = 0; i < 2; i++) {
      const { session } = await resolver(request);
      expect(session).toMatchObject({ kind: 'error', error: { errorType: 'https_behind_untrusted_proxy' } });
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      origin: 'https://shop.example.com',
      reached_as: 'http://shop.example.com',
      msg: expect.stringMatching(/trust proxy.*docs\/host-sessions\.md/),
    });
    expect(JSON.stringify(lines)).not.toContain(session_token as string);
  });

  it('defaults to the console: the message first, then the fields', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const latchkey = createLatchkey({ storage: failingRateLimits(new Error('down')), secret: TEST_SECRET });
    expect(latchkey.logger).toBe(consoleLogger);
    const t = await testApp(latchkey);
    const res = await t.call('POST', '/v1/auth/otps/email/login_or_create', { email: EMAIL }, t.public_token);
    expect(error).toHaveBeenCalledTimes(1);
    expect(error.mock.calls[0]).toEqual([
      'latchkey: request failed',
      { err: expect.objectContaining({ message: 'down' }), request_id: res.headers.get('x-request-id') },
    ]);
  });

  it('refuses a logger without the three levels', () => {
    expect(() =>
      createLatchkey({
        storage: memoryStorage(),
        secret: TEST_SECRET,
        logger: { info() {}, error() {} } as unknown as Logger,
      }),
    ).toThrow(/logger must be an object with info, warn, error/);
  });
});
