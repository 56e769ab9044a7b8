import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey, LatchkeyError, type Storage, type TelemetryTracer } from '../src/index.js';
import { capturingSender, manualClock, TEST_SECRET, type TestApp, testApp } from './helpers.js';
import { storageBackends } from './storage-backends.js';
import { base32Decode, oracleCode } from './totp-oracle.js';
import { assert, attest } from './webauthn-authenticator.js';

// What a host does: OpenTelemetry's own SDK, its AsyncLocalStorage context (so storage spans nest
// under their request), and the in-memory exporter its docs give for tests.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(async () => {
  context.disable();
  await provider.shutdown();
});

// The API's own type is what a host passes: it must satisfy Latchkey's structural one.
const otelTracer: TelemetryTracer = provider.getTracer('latchkey-test');
const _globalTracer: TelemetryTracer = trace.getTracer('latchkey');

/** Every attribute a Latchkey span may carry: a new one has to be added here, and reviewed. */
const ALLOWED_ATTRIBUTES = new Set([
  'http.request.method',
  'http.request.method_original',
  'http.route',
  'url.scheme',
  'http.response.status_code',
  'error.type',
  'latchkey.request_id',
  'latchkey.app_id',
  'latchkey.storage.repo',
  'latchkey.storage.method',
]);

/** Keys whose values (in any request or response body) are secrets or personal data. */
const SECRET_FIELD =
  /token|jwt|secret|otp|code|signature|challenge|nonce|key|mnemonic|email|phone|recovery|authenticator|client_data|clientdata|attestation|ciphertext|user_handle|userhandle/i;

/** Collects the string values under secret-looking keys, at any depth. */
function harvest(value: unknown, key: string, into: Set<string>): void {
  if (typeof value === 'string') {
    if (SECRET_FIELD.test(key) && value.length >= 6) into.add(value);
    return;
  }
  if (Array.isArray(value)) for (const item of value) harvest(item, key, into);
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) harvest(v, SECRET_FIELD.test(key) ? key : k, into);
}

/** Every text a span shows an exporter: its name, attributes, events, status message. */
function spanTexts(span: ReadableSpan): string[] {
  const texts = [span.name, span.status.message ?? ''];
  for (const [k, v] of Object.entries(span.attributes)) texts.push(k, String(v));
  for (const event of span.events) {
    texts.push(event.name);
    for (const [k, v] of Object.entries(event.attributes ?? {})) texts.push(k, String(v));
  }
  for (const link of span.links)
    for (const [k, v] of Object.entries(link.attributes ?? {})) texts.push(k, String(v));
  return texts;
}

const SIGNUP = 'https://app.example.com/auth/signup';
const ORIGIN = 'https://example.com';
const WALLET_KEY = `0x${'5c'.repeat(32)}`;
const MNEMONIC = 'test test test test test test test test test test test junk';

/**
 * The suite's sign-ins over HTTP, each request and answer kept: OTP by email and SMS, a magic
 * link, TOTP with a recovery code, a passkey, a wallet signature, sessions authenticated and
 * revoked, wallets imported, exported and signing, a webhook endpoint and its signing secret.
 */
async function signIns(
  t: TestApp,
  sender: ReturnType<typeof capturingSender>,
  clock: ReturnType<typeof manualClock>,
) {
  const secrets = new Set<string>([TEST_SECRET, t.secret_key, t.public_token, WALLET_KEY, MNEMONIC]);
  const calls: Array<{ method: string; path: string; status: number }> = [];
  const call = async (method: string, path: string, body?: unknown, key?: string | null) => {
    const res = await t.call(method, path, body, key);
    calls.push({ method, path, status: res.status });
    harvest(body, '', secrets);
    harvest(res.body, '', secrets);
    return res;
  };
  const ok = async (method: string, path: string, body?: unknown, key?: string | null) => {
    const res = await call(method, path, body, key);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  const now = () => Math.floor(clock.now() / 1000);

  // OTP by email, a wrong code first.
  const email = await ok(
    'POST',
    '/v1/auth/otps/email/login_or_create',
    { email: 'otp.user@example.com' },
    t.public_token,
  );
  const wrong = await call(
    'POST',
    '/v1/auth/otps/verify',
    { method_id: email.email_id, otp: '000000' },
    t.public_token,
  );
  expect(wrong.status).toBe(401);
  const otpSession = await ok(
    'POST',
    '/v1/auth/otps/verify',
    { method_id: email.email_id, otp: sender.lastCode('otp.user@example.com'), session_expires_in: 60 },
    t.public_token,
  );
  // OTP by SMS.
  const sms = await ok(
    'POST',
    '/v1/auth/otps/sms/login_or_create',
    { phone_number: '+14155550134' },
    t.public_token,
  );
  await ok(
    'POST',
    '/v1/auth/otps/verify',
    { method_id: sms.phone_number_id, otp: sender.lastCode('+14155550134') },
    t.public_token,
  );

  // A magic link.
  await ok(
    'POST',
    '/v1/auth/magic_links/email/login_or_create',
    { email: 'link.user@example.com' },
    t.public_token,
  );
  const link = sender.sent.filter((m) => m.kind === 'magic_link').at(-1)!;
  const token = new URL(link.url!).searchParams.get('token')!;
  secrets.add(token);
  await ok('POST', '/v1/auth/magic_links/authenticate', { token, session_expires_in: 60 }, t.public_token);

  // TOTP: enrolled, verified, signed in with, and a recovery code.
  const user_id = otpSession.user_id as string;
  const created = await ok('POST', '/v1/auth/totps/create', { user_id });
  const totpSecret = base32Decode(created.secret);
  await ok('POST', '/v1/auth/totps/verify', { user_id, totp_code: oracleCode(totpSecret, now()) });
  await ok('POST', '/v1/auth/totps/authenticate', {
    user_id,
    totp_code: oracleCode(totpSecret, now() + 30),
    session_expires_in: 60,
  });
  await ok('POST', '/v1/auth/totps/recover', { user_id, recovery_code: created.recovery_codes[0] });

  // A passkey: registered, then signed in with.
  const reg = await ok('POST', '/v1/auth/webauthn/registrations/begin', { domain: 'example.com', user_id });
  const { credential, json } = attest(reg.public_key_credential_creation_options.publicKey, {
    origin: ORIGIN,
  });
  secrets.add(credential.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  await ok('POST', '/v1/auth/webauthn/registrations/create', { user_id, public_key_credential: json });
  const begin = await ok(
    'POST',
    '/v1/auth/webauthn/authentications/begin',
    { domain: 'example.com' },
    t.public_token,
  );
  clock.advance(1);
  await ok(
    'POST',
    '/v1/auth/webauthn/authentications/complete',
    {
      public_key_credential: assert(begin.public_key_credential_request_options.publicKey, credential, {
        origin: ORIGIN,
      }),
      session_expires_in: 60,
    },
    t.public_token,
  );

  // Sign-in with an Ethereum wallet (EIP-4361), signed by ethers.
  const signer = new Wallet(`0x${'a7'.repeat(32)}`);
  secrets.add(signer.privateKey);
  clock.advance(1);
  const challenge = await ok(
    'POST',
    '/v1/auth/wallets/challenge',
    { wallet_type: 'ethereum', public_address: signer.address },
    t.public_token,
  );
  const signature = Buffer.from((await signer.signMessage(challenge.challenge)).slice(2), 'hex').toString(
    'base64',
  );
  const walletSession = await ok(
    'POST',
    '/v1/auth/wallets/verify',
    { wallet_type: 'ethereum', public_address: signer.address, signature, session_expires_in: 60 },
    t.public_token,
  );

  // Sessions: by token and by JWT, then revoked.
  await ok(
    'POST',
    '/v1/auth/sessions/authenticate',
    { session_token: walletSession.session_token },
    t.public_token,
  );
  await ok('POST', '/v1/auth/sessions/authenticate', { session_jwt: walletSession.session_jwt });
  await ok('POST', '/v1/auth/sessions/revoke', { session_token: otpSession.session_token });

  // Custodial wallets: imported from a key and a phrase, exported, signing.
  const imported = await ok('POST', '/v1/wallets/import', {
    user_id,
    wallet_type: 'ethereum',
    private_key: WALLET_KEY,
  });
  await ok('POST', '/v1/wallets/import', { user_id, wallet_type: 'solana', mnemonic: MNEMONIC });
  await ok('POST', `/v1/wallets/${imported.id}/export`, { recipient_public_key: 'ab'.repeat(32) });
  await ok('POST', `/v1/wallets/${imported.id}/sign_message`, { message: 'pay 5 to bob' });

  // A webhook endpoint: its signing secret is in the answer.
  await ok('POST', '/v1/webhooks/endpoints', {
    url: 'http://127.0.0.1:9/hook',
    event_types: ['user.created'],
  });

  for (const m of sender.sent) {
    secrets.add(m.to);
    if (m.code) secrets.add(m.code);
    if (m.url) secrets.add(m.url);
  }
  return { secrets, calls };
}

describe.each(storageBackends())('spans on $name', (backend) => {
  let opened: Awaited<ReturnType<typeof backend.open>>;
  beforeAll(async () => {
    opened = await backend.open();
  });
  afterAll(() => opened.dispose());

  it("carry none of the sign-ins' secrets, a span per request named by its route, a span per storage call under it", async () => {
    const clock = manualClock();
    const sender = capturingSender();
    const latchkey = createLatchkey({
      storage: opened.storage,
      secret: TEST_SECRET,
      clock,
      sender,
      tracer: otelTracer,
      webhooks: { allowPrivateTargets: true },
    });
    const t = await testApp(latchkey);
    await latchkey.apps.updateSettings(t.app_id, {
      redirect_urls: { signup: [SIGNUP], login: [SIGNUP], default_signup: SIGNUP, default_login: SIGNUP },
      webauthn: { allowed_domains: ['example.com'] },
    });
    exporter.reset();
    const { secrets, calls } = await signIns(t, sender, clock);
    const spans = exporter.getFinishedSpans();

    // Every secret the test knows, searched for in every text of every span.
    expect(secrets.size).toBeGreaterThan(40);
    const leaks = spans.flatMap((span) =>
      spanTexts(span).flatMap((text) =>
        [...secrets].filter((s) => text.includes(s)).map((s) => `${span.name}: ${s.slice(0, 40)}`),
      ),
    );
    expect(leaks).toEqual([]);
    for (const span of spans)
      for (const key of Object.keys(span.attributes))
        expect(ALLOWED_ATTRIBUTES, `${span.name}: ${key}`).toContain(key);

    // One server span per request, in order, named `METHOD /route/:param` with its answer's status.
    const servers = spans.filter((s) => s.kind === 1);
    expect(servers.map((s) => s.attributes['http.response.status_code'])).toEqual(calls.map((c) => c.status));
    expect(servers.map((s) => s.attributes['http.request.method'])).toEqual(calls.map((c) => c.method));
    for (const [i, span] of servers.entries()) {
      const route = span.attributes['http.route'] as string;
      const pattern = new RegExp(`^${route.replace(/:[a-z_]+/g, '[^/]+')}$`);
      expect(calls[i]!.path).toMatch(pattern);
      expect(span.name).toBe(`${calls[i]!.method} ${route}`);
      expect(span.attributes['latchkey.app_id']).toBe(t.app_id);
      expect(span.attributes['latchkey.request_id']).toMatch(/^req_/);
    }
    expect(servers.map((s) => s.attributes['http.route'])).toContain('/v1/wallets/:wallet_id/sign_message');
    // The wrong code: its error_type, and no error status for a 4xx.
    const refused = servers.find((s) => s.attributes['http.response.status_code'] === 401)!;
    expect(refused.attributes['error.type']).toBe('otp_code_invalid');
    expect(refused.status.code).toBe(0);
    expect(servers.filter((s) => 'error.type' in s.attributes)).toHaveLength(1);

    // Storage calls: named by repo and method, each inside a request (or a transaction inside one).
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const storageSpans = spans.filter((s) => s.name.startsWith('latchkey.storage '));
    expect(storageSpans.length).toBeGreaterThan(calls.length);
    // A storage may offer the one-round-trip `…WithEvents` form of a write or only the plain one.
    const storageNames = storageSpans.map((s) => s.name);
    for (const call of [
      /^latchkey\.storage otps\.consume/,
      /^latchkey\.storage sessions\.insert/,
      /^latchkey\.storage transaction$/,
    ])
      expect(
        storageNames.some((name) => call.test(name)),
        String(call),
      ).toBe(true);
    for (const span of storageSpans) {
      let parent = byId.get(span.parentSpanContext?.spanId ?? '');
      while (parent && parent.kind !== 1) parent = byId.get(parent.parentSpanContext?.spanId ?? '');
      expect(parent, span.name).toBeDefined();
      expect(span.spanContext().traceId).toBe(parent!.spanContext().traceId);
    }
  });
});

describe('request spans', () => {
  const traced = async (storage?: Storage) => {
    const { memoryStorage } = await import('@latchkey/memory');
    const latchkey = createLatchkey({
      storage: storage ?? memoryStorage(),
      secret: TEST_SECRET,
      tracer: otelTracer,
      onInternalError: () => {},
    });
    const t = await testApp(latchkey);
    exporter.reset();
    return t;
  };

  it('record the route, never the raw path or query; a 404 and a 405 have no route', async () => {
    const t = await traced();
    const id = 'user_thisIdIsNotInTheSpans';
    expect((await t.call('GET', `/v1/auth/users/${id}?token=querySecret123`)).status).toBe(404);
    expect((await t.call('GET', '/v1/nowhere/secretPathPart')).status).toBe(404);
    expect((await t.call('DELETE', '/v1/auth/users')).status).toBe(405);
    const servers = exporter.getFinishedSpans().filter((s) => s.kind === 1);
    expect(servers.map((s) => [s.name, s.attributes['http.route'], s.attributes['error.type']])).toEqual([
      ['GET /v1/auth/users/:user_id', '/v1/auth/users/:user_id', 'user_not_found'],
      ['GET', undefined, 'route_not_found'],
      ['DELETE', undefined, 'method_not_allowed'],
    ]);
    const texts = exporter.getFinishedSpans().flatMap(spanTexts).join('\n');
    for (const raw of [id, 'querySecret123', 'secretPathPart', 'nowhere']) expect(texts).not.toContain(raw);
  });

  it('a failing storage call: error.type and the error status on it and its request, never the message', async () => {
    const { memoryStorage } = await import('@latchkey/memory');
    const inner = memoryStorage();
    const storage = {
      ...inner,
      apps: {
        ...inner.apps,
        findByKeyHash: async () => {
          throw new Error('connection string postgres://admin:hunter2@db');
        },
      },
    } as Storage;
    const t = await traced(storage);
    expect((await t.call('POST', '/v1/auth/users', { email: 'x@example.com' })).status).toBe(500);
    const spans = exporter.getFinishedSpans();
    const insert = spans.find((s) => s.name === 'latchkey.storage apps.findByKeyHash')!;
    expect(insert.attributes['error.type']).toBe('internal_error');
    expect(insert.status).toEqual({ code: 2, message: 'internal_error' });
    const request = spans.find((s) => s.kind === 1)!;
    expect(request.attributes).toMatchObject({
      'http.response.status_code': 500,
      'error.type': 'internal_error',
    });
    expect(request.status.code).toBe(2);
    expect(spans.flatMap(spanTexts).join('\n')).not.toContain('hunter2');
  });

  it('a LatchkeyError from storage keeps its error_type', async () => {
    const { memoryStorage } = await import('@latchkey/memory');
    const inner = memoryStorage();
    const storage = {
      ...inner,
      apps: {
        ...inner.apps,
        findByKeyHash: async () => {
          throw new LatchkeyError('storage_unavailable');
        },
      },
    } as Storage;
    const t = await traced(storage);
    expect((await t.call('POST', '/v1/auth/users', { email: 'x@example.com' })).status).toBe(503);
    const spans = exporter.getFinishedSpans();
    expect(
      spans.find((s) => s.name === 'latchkey.storage apps.findByKeyHash')!.attributes['error.type'],
    ).toBe('storage_unavailable');
    expect(spans.find((s) => s.kind === 1)!.status.code).toBe(2);
  });
});

describe('without a tracer', () => {
  it('core imports nothing of OpenTelemetry: it is an optional peer, a devDependency for these tests', async () => {
    const src = resolve(import.meta.dirname, '../src');
    const files = (await readdir(src, { recursive: true })).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(100);
    for (const file of files)
      expect(await readFile(join(src, file), 'utf8'), file).not.toMatch(
        /(from|import)\s*\(?\s*['"]@opentelemetry/,
      );
    const manifest = JSON.parse(await readFile(resolve(src, '../package.json'), 'utf8'));
    expect(manifest.dependencies['@opentelemetry/api']).toBeUndefined();
    expect(manifest.peerDependenciesMeta['@opentelemetry/api']).toEqual({ optional: true });
  });

  it('starts no span: the global tracer of a registered provider is never asked', async () => {
    const { memoryStorage } = await import('@latchkey/memory');
    trace.setGlobalTracerProvider(provider);
    try {
      const t = await testApp(createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET }));
      exporter.reset();
      expect((await t.call('POST', '/v1/auth/users', { email: 'y@example.com' })).status).toBe(200);
      expect(exporter.getFinishedSpans()).toEqual([]);
    } finally {
      trace.disable();
    }
  });
});
