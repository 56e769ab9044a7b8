import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, type TestApp, testApp } from './helpers.js';

/**
 * The HTTP contract, driven by the OpenAPI document itself: every route it lists gets the same
 * hostile inputs, so a route added later is covered without writing new cases. Routes whose
 * body has required fields need a valid example here (the test fails until one is added).
 */
const VALID_BODIES: Record<string, unknown> = {
  'POST /v1/webhooks/endpoints': { url: 'https://hooks.example.com/latchkey', event_types: ['user.created'] },
  'POST /v1/events/{event_id}/redeliver': { endpoint_id: 'whep_01' },
  'POST /v1/auth/wallets/challenge': {
    wallet_type: 'ethereum',
    public_address: '0x52908400098527886E0F7030069857D2E4169EE7',
  },
  'POST /v1/auth/wallets/verify': {
    wallet_type: 'solana',
    public_address: '11111111111111111111111111111111',
    signature: '1'.repeat(64),
  },
  'POST /v1/auth/passwords/strength_check': { password: 'correct horse battery staple' },
  'PATCH /v1/app/settings': { otp: { max_attempts: 6 } },
  'POST /v1/auth/users': { email: 'valid@example.com' },
  'POST /v1/auth/otps/sms/send': { phone_number: '+14155550100' },
  'POST /v1/auth/otps/email/send': { email: 'valid@example.com' },
  'POST /v1/auth/otps/sms/login_or_create': { phone_number: '+14155550100' },
  'POST /v1/auth/otps/email/login_or_create': { email: 'valid@example.com' },
  'POST /v1/auth/otps/verify': { method_id: 'email_0', otp: '123456' },
  'POST /v1/auth/sessions/authenticate': { session_token: 'lks_x' },
  'POST /v1/auth/magic_links/email/login_or_create': { email: 'valid@example.com' },
  'POST /v1/auth/magic_links/authenticate': { token: 'not-a-real-token' },
  'POST /v1/auth/oauth/authenticate': { token: 'not-a-real-token' },
  'POST /v1/auth/passwords/create': { email: 'new@example.com', password: 'plum-ledger-quartz-harbor-91' },
  'POST /v1/auth/passwords/authenticate': { email: 'a@example.com', password: 'pw' },
  'POST /v1/auth/passwords/email/reset/start': { email: 'a@example.com' },
  'POST /v1/auth/passwords/email/reset': { token: 'not-a-real-token', password: 'pw' },
  'POST /v1/auth/passwords/existing_password/reset': {
    email: 'a@example.com',
    existing_password: 'pw',
    new_password: 'plum-ledger-quartz-harbor-91',
  },
  'POST /v1/auth/passwords/session/reset': { session_token: 'lks_x', password: 'pw' },
  'POST /v1/auth/passwords/migrate': {
    email: 'a@example.com',
    hash: '$2b$10$abcdefghijklmnopqrstuvabcdefghijklmnopqrstuvwxyzABCDE',
    hash_type: 'bcrypt',
  },
  'POST /v1/auth/totps/create': { user_id: 'user_x' },
  'POST /v1/wallets/create': { wallet_type: 'ethereum', user_id: 'user_x' },
  'POST /v1/wallets/import': {
    user_id: 'user_x',
    wallet_type: 'ethereum',
    private_key: `0x${'11'.repeat(32)}`,
  },
  'POST /v1/wallets/{wallet_id}/export': { recipient_public_key: 'aa'.repeat(32) },
  'POST /v1/wallets/{wallet_id}/send_transaction': {
    eth_transaction: { chain_id: '1', to: '0x52908400098527886E0F7030069857D2E4169EE7', value: '1' },
  },
  'POST /v1/wallets/{wallet_id}/transactions/{transaction_id}/speed_up': { max_priority_fee_per_gas: '2' },
  'POST /v1/wallets/{wallet_id}/transactions/{transaction_id}/cancel': { max_fee_per_gas: '1' },
  'POST /v1/wallets/balance': { token_symbol: 'ethereum', wallet_id: 'wallet_x' },
  'POST /v1/wallets/{wallet_id}/sign_transaction': {
    sol_transaction: { transaction: 'AAAA', encoding: 'base64' },
  },
  'POST /v1/wallets/{wallet_id}/sign_message': { message: 'Hello', encoding: 'utf8' },
  'POST /v1/wallets/{wallet_id}/sign_typed_data': {
    typed_data: {
      domain: { name: 'Example', version: '1', chainId: 1 },
      types: { Greeting: [{ name: 'text', type: 'string' }] },
      primaryType: 'Greeting',
      message: { text: 'Hello' },
    },
  },
  'POST /v1/organizations': { name: 'Acme', slug: 'acme' },
  'PATCH /v1/organizations/{organization_id}': { name: 'Acme Corp' },
  'POST /v1/organizations/{organization_id}/members': { user_id: 'user_01', roles: ['member'] },
  'PATCH /v1/organizations/{organization_id}/members/{member_id}': { roles: ['admin'] },
  'POST /v1/organizations/{organization_id}/invitations': {
    email: 'invitee@example.com',
    redirect_url: 'https://app.example.com/invite',
  },
  'POST /v1/organizations/invitations/accept': { token: 'not-a-real-token' },
  'POST /v1/organizations/{organization_id}/join': { session_token: 'not-a-real-token' },
  'POST /v1/organizations/{organization_id}/sessions/exchange': { session_token: 'lks_x' },
  'POST /v1/organizations/{organization_id}/sso_connection': {
    issuer: 'https://idp.example.com',
    client_id: 'acme',
    client_secret: 'acme-secret',
  },
  'PATCH /v1/organizations/{organization_id}/sso_connection': { client_id: 'acme-2' },
  'POST /v1/auth/sso/authenticate': { token: 'not-a-real-token' },
  'POST /v1/wallets/policies': {
    name: 'Treasury limits',
    rules: [{ kind: 'evm_to_allowlist', addresses: ['0x52908400098527886E0F7030069857D2E4169EE7'] }],
  },
  'PATCH /v1/wallets/policies/{policy_id}': { name: 'Renamed' },
  'POST /v1/auth/totps/verify': { user_id: 'user_x', totp_code: '123456' },
  'POST /v1/auth/totps/authenticate': { user_id: 'user_x', totp_code: '123456' },
  'POST /v1/auth/totps/recover': { user_id: 'user_x', recovery_code: 'aaaaa-aaaaa' },
  'POST /v1/auth/sessions/revoke': { session_id: 'session_x' },
  'POST /v1/auth/sessions/revoke_all': { user_id: 'user_x' },
  'POST /v1/auth/webauthn/registrations/begin': { domain: 'example.com', user_id: 'user_x' },
  'POST /v1/auth/webauthn/registrations/create': {
    user_id: 'user_x',
    public_key_credential: {
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      response: { clientDataJSON: 'e30', attestationObject: 'oA' },
      clientExtensionResults: {},
    },
  },
  'POST /v1/auth/webauthn/authentications/begin': { domain: 'example.com' },
  'POST /v1/auth/webauthn/authentications/complete': {
    public_key_credential: {
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' },
      clientExtensionResults: {},
    },
  },
};

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  minLength?: number;
  $ref?: string;
  anyOf?: Schema[];
};
type Operation = {
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
};

let t: TestApp;
let doc: {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
const operations: Array<{ id: string; method: string; path: string; op: Operation }> = [];

beforeAll(async () => {
  t = await testApp();
  const res = await t.call('GET', '/v1/openapi.json', undefined, null);
  expect(res.status).toBe(200);
  doc = res.body;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      operations.push({ id: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, op });
    }
  }
});

const resolve = (s: Schema): Schema => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()!]! : s);
const concretePath = (path: string, id = 'zz_unknown_id') => path.replace(/\{[^}]+\}/g, id);
const secretOnly = (op: Operation) => op.security?.length === 1 && 'secretKey' in op.security[0]!;
const keyed = (op: Operation) => (op.security?.length ?? 0) > 0;

function wrongTypeValue(s: Schema): unknown {
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return 12345;
    case 'number':
    case 'integer':
      return 'not-a-number';
    case 'boolean':
      return 'yes';
    case 'array':
      return { not: 'an array' };
    default:
      return 'not-an-object';
  }
}

async function raw(method: string, path: string, body: string | undefined, headers: Record<string, string>) {
  const res = await t.latchkey.fetch(new Request(`http://latchkey.test${path}`, { method, headers, body }));
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed as any, headers: res.headers };
}

describe('the OpenAPI document', () => {
  it('validates as OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('lists every route the app serves, and only those', () => {
    const served = t.latchkey.routes().filter((r) => r !== 'GET /v1/openapi.json');
    const listed = operations.map((o) => o.id).sort();
    expect(served.sort()).toEqual(listed);
    expect(listed).toEqual(
      expect.arrayContaining(['GET /v1/health', 'POST /v1/auth/users', 'GET /v1/auth/users/{user_id}']),
    );
  });
});

describe('every route', () => {
  it('refuses missing, malformed and unknown keys with 401, and a public token on secret routes with 403', async () => {
    for (const { id, method, path, op } of operations) {
      if (!keyed(op)) continue;
      const url = concretePath(path);
      for (const authorization of [
        undefined,
        'Bearer',
        'Bearer sk_nope',
        `Basic ${t.secret_key}`,
        `Bearer ${t.secret_key}x`,
      ]) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (authorization) headers.authorization = authorization;
        const res = await raw(
          method,
          url,
          method === 'GET' || method === 'DELETE' ? undefined : '{}',
          headers,
        );
        expect(res.status, `${id} with ${authorization}`).toBe(401);
        expect(expectErrorShape(res).error_type).toBe('unauthorized');
      }
      if (secretOnly(op)) {
        const res = await t.call(
          method,
          url,
          method === 'GET' || method === 'DELETE' ? undefined : {},
          t.public_token,
        );
        expect(res.status, id).toBe(403);
        expect(expectErrorShape(res).error_type).toBe('secret_key_required');
      }
    }
  });

  it('answers unknown ids in paths with a 404 and never a 500 for odd ones', async () => {
    for (const { id, method, path } of operations) {
      if (!path.includes('{')) continue;
      const body = method === 'GET' || method === 'DELETE' ? undefined : (VALID_BODIES[id] ?? {});
      const res = await t.call(method, concretePath(path), body);
      expect(res.status, id).toBe(404);
      expectErrorShape(res);
      for (const odd of ['x'.repeat(5000), '%E2%9C%93', '..%2F..%2Fetc', '%00', '__proto__']) {
        const r = await t.call(method, concretePath(path, odd), body);
        expect(r.status, `${id} with ${odd.slice(0, 20)}`).toBeGreaterThanOrEqual(400);
        expect(r.status, `${id} with ${odd.slice(0, 20)}`).toBeLessThan(500);
        expectErrorShape(r);
      }
    }
  });

  it('gives each bad body its own 4xx in the documented shape', async () => {
    const auth = { authorization: `Bearer ${t.secret_key}` };
    const json = { ...auth, 'content-type': 'application/json' };
    for (const { id, method, path, op } of operations) {
      const schemaRef = op.requestBody?.content['application/json']?.schema;
      if (!schemaRef) continue;
      const url = concretePath(path);
      const schema = resolve(schemaRef);
      const valid = VALID_BODIES[id];
      expect(valid, `add a valid example body for ${id} to VALID_BODIES`).toBeDefined();

      const cases: Array<[string, string, Record<string, string>, number, string]> = [
        ['invalid JSON', '{"email": ', json, 400, 'invalid_json'],
        ['empty body', '', json, 400, 'invalid_json'],
        [
          'text/plain',
          JSON.stringify(valid),
          { ...auth, 'content-type': 'text/plain' },
          415,
          'unsupported_media_type',
        ],
        ['no content type', JSON.stringify(valid), auth, 415, 'unsupported_media_type'],
        [
          'form body',
          'email=a%40b.c',
          { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
          415,
          'unsupported_media_type',
        ],
        ['2 MiB body', JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }), json, 413, 'request_too_large'],
        ['array body', '[]', json, 400, 'invalid_field'],
        ['string body', '"hello"', json, 400, 'invalid_field'],
        ['null body', 'null', json, 400, 'invalid_field'],
        [
          'unknown field',
          JSON.stringify({ ...(valid as object), zz_unknown: 1 }),
          json,
          400,
          'unknown_field',
        ],
        [
          '__proto__ key',
          `{"__proto__": {"polluted": true}, ${JSON.stringify(valid).slice(1)}`,
          json,
          400,
          'unknown_field',
        ],
        [
          'constructor key',
          JSON.stringify({ ...(valid as object), constructor: { prototype: {} } }),
          json,
          400,
          'unknown_field',
        ],
      ];
      for (const [prop, propSchema] of Object.entries(schema.properties ?? {})) {
        const s = resolve(propSchema);
        cases.push([
          `${prop} of the wrong type`,
          JSON.stringify({ ...(valid as object), [prop]: wrongTypeValue(s) }),
          json,
          400,
          'invalid_field',
        ]);
        if (s.type === 'string' && (s.minLength ?? 0) >= 1) {
          cases.push([
            `${prop} empty`,
            JSON.stringify({ ...(valid as object), [prop]: '' }),
            json,
            400,
            'invalid_field',
          ]);
        }
        if (schema.required?.includes(prop)) {
          const { [prop]: _dropped, ...rest } = valid as Record<string, unknown>;
          cases.push([`${prop} missing`, JSON.stringify(rest), json, 400, 'missing_field']);
        }
      }
      for (const [name, body, headers, status, errorType] of cases) {
        const res = await raw(method, url, body, headers);
        expect(res.status, `${id}: ${name}`).toBe(status);
        expect(expectErrorShape(res).error_type, `${id}: ${name}`).toBe(errorType);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });

  it('names the failing field in 400s', async () => {
    const res = await t.call('POST', '/v1/auth/users', { name: { first_name: 7 } });
    expect(res.status).toBe(400);
    expect(expectErrorShape(res)).toMatchObject({
      error_type: 'invalid_field',
      error_field: 'name.first_name',
    });
    expect(res.body.error_message).toContain('name.first_name');
  });
});

describe('routing', () => {
  it('answers unknown routes with 404 and wrong methods with 405 and Allow', async () => {
    const missing = await t.call('GET', '/v1/nothing/here');
    expect(missing.status).toBe(404);
    expect(expectErrorShape(missing).error_type).toBe('route_not_found');
    const wrong = await t.call('PUT', '/v1/auth/users', {});
    expect(wrong.status).toBe(405);
    expect(expectErrorShape(wrong).error_type).toBe('method_not_allowed');
    expect(wrong.headers.get('allow')).toBe('POST');
    const wrongOnParam = await t.call('DELETE', '/v1/auth/users/user_x');
    expect(wrongOnParam.status).toBe(405);
    // HEAD is served wherever GET is (Hono answers it from the GET route), so Allow lists it.
    expect(wrongOnParam.headers.get('allow')).toBe('GET, HEAD');
    expect(wrongOnParam.headers.get('x-request-id')).toMatch(/^req_/);
    const head = await t.call('HEAD', '/v1/auth/users/user_x');
    expect(head.status).toBe(404);
  });

  it('serves health and the OpenAPI document without a key, and gives every response a request id', async () => {
    const health = await t.call('GET', '/v1/health', undefined, null);
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(health.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
    const again = await t.call('GET', '/v1/health', undefined, null);
    expect(again.headers.get('x-request-id')).not.toBe(health.headers.get('x-request-id'));
  });
});

describe('API keys', () => {
  it('rotates the secret key: the new one works, the old one stops (at once or after a grace period)', async () => {
    const app = await testApp();
    const path = '/v1/auth/users/user_x';
    expect((await app.call('GET', path)).status).toBe(404);
    const rotated = await app.latchkey.apps.rotateSecretKey(app.app_id);
    expect(rotated.secret_key).not.toBe(app.secret_key);
    expect((await app.call('GET', path)).status).toBe(401);
    expect((await app.call('GET', path, undefined, rotated.secret_key)).status).toBe(404);
    const graceful = await app.latchkey.apps.rotateSecretKey(app.app_id, { graceSeconds: 60 });
    expect((await app.call('GET', path, undefined, rotated.secret_key)).status).toBe(404);
    expect((await app.call('GET', path, undefined, graceful.secret_key)).status).toBe(404);
  });

  it('stores keys only as keyed hashes', async () => {
    const app = await testApp();
    const record = await app.latchkey.storage.apps.get(app.app_id);
    const dump = JSON.stringify(record);
    expect(dump).not.toContain(app.secret_key);
    expect(dump).not.toContain(app.public_token);
    expect(dump).not.toContain(app.secret_key.slice(3, 20));
  });
});

/** Routes whose public-token form takes another body than the secret-key example above. */
const PUBLIC_TOKEN_BODIES: Record<string, unknown> = {
  'POST /v1/auth/webauthn/registrations/begin': { domain: 'example.com', session_token: 'lks_x' },
  'POST /v1/auth/webauthn/registrations/create': {
    session_jwt: 'eyJ.x.y',
    public_key_credential: (
      VALID_BODIES['POST /v1/auth/webauthn/registrations/create'] as Record<string, unknown>
    ).public_key_credential,
  },
};

describe('public-token bodies', () => {
  it("are in the document, and answer the session's 401 rather than a 400 for their shape", async () => {
    for (const [id, body] of Object.entries(PUBLIC_TOKEN_BODIES)) {
      const [method, path] = id.split(' ') as [string, string];
      const op = doc.paths[path]?.[method.toLowerCase()];
      expect(op?.security, id).toContainEqual({ publicToken: [] });
      const schema = resolve(op!.requestBody!.content['application/json']!.schema);
      expect(Object.keys(schema.properties ?? {}), id).toEqual(
        expect.arrayContaining(['session_token', 'session_jwt', 'user_id']),
      );
      const res = await t.call(method, path, body, t.public_token);
      expect(res.status, `${id} ${JSON.stringify(res.body)}`).toBe(401);
      expect(expectErrorShape(res).error_type).toMatch(/^(session_not_found|invalid_session_jwt)$/);
    }
  });
});
