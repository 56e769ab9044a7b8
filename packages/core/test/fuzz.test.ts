import { errorCatalogue } from '@latchkey/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp, testLatchkey } from './helpers.js';

/**
 * Generated fuzzing, driven by the OpenAPI document alone: every operation it lists gets
 * fast-check bodies (valid-shaped from the operation's JSON schema, invalid-shaped, huge,
 * unicode, nested junk, prototype-pollution keys), query strings and path ids, with the secret
 * key (or the public token where the route takes it). Whatever comes in: never a 5xx, always the
 * documented error body on non-2xx, and another App's records stay exactly as they were.
 *
 * `npm test` runs FUZZ_RUNS cases per route; LATCHKEY_FUZZ_RUNS=5000 runs longer,
 * LATCHKEY_FUZZ_SEED=<n> replays a run.
 */
const FUZZ_RUNS = Number(process.env.LATCHKEY_FUZZ_RUNS || 200);
const SEED = process.env.LATCHKEY_FUZZ_SEED ? Number(process.env.LATCHKEY_FUZZ_SEED) : undefined;

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  pattern?: string;
  example?: unknown;
  $ref?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
};
type Parameter = { in: string; name: string; required?: boolean; schema?: Schema };
type Operation = {
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
};

// ---------------------------------------------------------------------------------------------
// The world: App A is fuzzed, App B is the bystander whose records must never change.

const { latchkey, sender } = testLatchkey({ onInternalError: () => {} });

interface Seeded {
  t: TestApp;
  user_id: string;
  email: string;
  email_id: string;
  phone_number_id: string;
  wallet_id: string;
  totp_id: string;
  session_id: string;
  session_token: string;
  session_jwt: string;
  policy_id: string;
}

async function seed(label: string, phone: string): Promise<Seeded> {
  const t = await testApp(latchkey);
  const ok = async (method: string, path: string, body?: unknown, key?: string) => {
    const res = await t.call(method, path, body, key);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const email = `${label}@example.com`;
  const user = await ok('POST', '/v1/auth/users', {
    email,
    phone_number: phone,
    name: { first_name: label },
  });
  const login = await ok('POST', '/v1/auth/otps/email/login_or_create', { email }, t.public_token);
  const verified = await ok('POST', '/v1/auth/otps/verify', {
    method_id: login.method_id,
    otp: sender.lastCode(email),
    session_expires_in: 600,
  });
  const wallet = await ok('POST', '/v1/wallets/create', { user_id: user.user_id, wallet_type: 'ethereum' });
  await ok('POST', '/v1/wallets/create', { user_id: user.user_id, wallet_type: 'solana' });
  const totp = await ok('POST', '/v1/auth/totps/create', { user_id: user.user_id });
  const policy = await ok('POST', '/v1/wallets/policies', {
    name: `${label} policy`,
    wallet_id: wallet.id,
    rules: [{ kind: 'evm_max_value', max_wei: '1000' }],
  });
  const read = await ok('GET', `/v1/auth/users/${user.user_id}`);
  return {
    t,
    user_id: user.user_id,
    email,
    email_id: login.method_id,
    phone_number_id: read.phone_numbers[0].phone_number_id,
    wallet_id: wallet.id,
    totp_id: totp.totp_id,
    session_id: verified.session.id,
    session_token: verified.session_token,
    session_jwt: verified.session_jwt,
    policy_id: policy.policy_id,
  };
}

const a = await seed('fuzz.a', '+14155550101');
const b = await seed('fuzz.b', '+14155550102');
// A's limits out of the way, so generated calls reach the services instead of a 429.
const high = { limit: 1_000_000 };
await latchkey.apps.updateSettings(a.t.app_id, {
  redirect_urls: {
    login: ['https://a.example.com/login'],
    signup: ['https://a.example.com/signup'],
    default_login: 'https://a.example.com/login',
    default_signup: 'https://a.example.com/signup',
  },
  rate_limits: { per_app: high, per_destination: high, public_routes: { verify: high, send: high } },
  cors: { allowed_origins: ['https://a.example.com'] },
});

/** B's records, read through the storage repositories. */
async function snapshotB() {
  const s = latchkey.storage;
  const app = b.t.app_id;
  return {
    app: await s.apps.get(app),
    user: await s.users.get(app, b.user_id),
    emails: await s.emails.listByUser(app, b.user_id),
    phoneNumbers: await s.phoneNumbers.listByUser(app, b.user_id),
    wallets: await s.wallets.list(app, { limit: 1000 }),
    seed: await s.seeds.get(app, b.user_id),
    session: await s.sessions.get(app, b.session_id),
    totp: await s.totps.getForUser(app, b.user_id),
    signingKeys: await s.signingKeys.list(app),
    walletPolicies: await s.walletPolicies.list(app, { limit: 1000 }),
    walletSignatures: await s.walletSignatures.list(app, b.wallet_id, { limit: 1000 }),
  };
}
const bBefore = await snapshotB();

const doc = (await (
  await a.t.latchkey.fetch(new Request('http://latchkey.test/v1/openapi.json'))
).json()) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({
    id: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    path,
    op,
  })),
);

// ---------------------------------------------------------------------------------------------
// Values. `Raw` is JSON text placed as is, for what JSON.stringify cannot write: `__proto__` as
// an own key, nesting deeper than any sane client sends.

class Raw {
  constructor(readonly text: string) {}
}
class Entries {
  constructor(readonly entries: Array<[string, unknown]>) {}
}

function toJson(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (v instanceof Entries)
    return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(',')}}`;
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  if (v !== null && typeof v === 'object') return toJson(new Entries(Object.entries(v)));
  return JSON.stringify(v) ?? 'null';
}

const IDS = [a, b].flatMap((s) => [
  s.t.app_id,
  s.user_id,
  s.email_id,
  s.phone_number_id,
  s.wallet_id,
  s.totp_id,
  s.session_id,
  s.policy_id,
]);
const TOKENS = [a, b].flatMap((s) => [s.session_token, s.session_jwt]);
const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

const unicode = fc.string({ unit: 'grapheme', maxLength: 40 });
const anyCodePoint = fc.string({ unit: 'binary', maxLength: 40 });
const tricky = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '\uFEFF',
  '\u202E',
  '%00',
  '%',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, on purpose.
  '${7*7}',
  '{{7*7}}',
  'ｅｍａｉｌ＠ｅｘａｍｐｌｅ．ｃｏｍ',
  '𝕏@example.com',
  'a@b',
  '+1',
  '+999999999999999999999',
  'NaN',
  '-0',
  '1e309',
  'null',
  'true',
  '0x',
  'user_',
  ...POLLUTION_KEYS,
);
const huge = fc.constantFrom(1_000, 70_000, 300_000, 1_200_000).map((n) => 'é'.repeat(n / 2));
const hostileString = fc.oneof(
  { arbitrary: unicode, weight: 3 },
  { arbitrary: anyCodePoint, weight: 2 },
  { arbitrary: tricky, weight: 3 },
  { arbitrary: fc.constantFrom(...IDS, ...TOKENS), weight: 2 },
  { arbitrary: huge, weight: 1 },
);

const deep = fc
  .tuple(fc.constantFrom('[', '{"a":'), fc.constantFrom(50, 5_000, 200_000))
  .map(([open, n]) => new Raw(`${open.repeat(n)}1${(open === '[' ? ']' : '}').repeat(n)}`));
const pollution: fc.Arbitrary<Entries> = fc
  .tuple(
    fc.constantFrom(...POLLUTION_KEYS),
    fc.constantFrom<unknown>({ polluted: true }, { prototype: { polluted: true } }, 'x', 1, null),
  )
  .map(([k, v]) => new Entries([[k, v]]));
const junk: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.constantFrom(null, true, false, 1e308, -1, 0, 2 ** 53 + 1, -(2 ** 63)),
  fc.jsonValue({ maxDepth: 3 }),
  deep,
  pollution,
  fc.array(fc.oneof(unicode, fc.integer(), pollution), { maxLength: 4 }),
);

// ---------------------------------------------------------------------------------------------
// Valid-shaped values from the schema; names only pick which pool of strings to draw from.

const resolve = (s: Schema): Schema =>
  s.$ref ? resolve(doc.components.schemas[s.$ref.split('/').pop()!]!) : s;

function stringFor(name: string, s: Schema): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 64, 64);
  const sized = fc.string({ minLength: min, maxLength: Math.max(min, max) });
  const pools: fc.Arbitrary<string>[] = [sized];
  if (s.example !== undefined) pools.push(fc.constant(String(s.example)));
  if (/email/.test(name))
    pools.push(fc.emailAddress(), fc.constantFrom(a.email, b.email, 'new.user@example.com'));
  if (/phone/.test(name))
    pools.push(
      fc.integer({ min: 0, max: 9999 }).map((n) => `+1415555${String(n).padStart(4, '0')}`),
      fc.constant('+14155550102'),
    );
  if (/(^|_)id$/.test(name))
    pools.push(
      fc.constantFrom(...IDS),
      fc.string({ maxLength: 20 }).map((x) => `${name.replace(/_id$/, '')}_${x}`),
    );
  if (/token|jwt/.test(name)) pools.push(fc.constantFrom(...TOKENS));
  if (/url/.test(name))
    pools.push(fc.webUrl(), fc.constantFrom('https://a.example.com/login', 'https://a.example.com/signup'));
  if (/otp|code/.test(name))
    pools.push(fc.integer({ min: 0, max: 999_999 }).map((n) => String(n).padStart(6, '0')));
  if (/key|mnemonic|transaction|signature/.test(name))
    pools.push(fc.base64String({ maxLength: 120 }), fc.stringMatching(/^(0x)?[0-9a-f]{0,130}$/));
  return fc
    .oneof(...pools)
    .filter((v) => v.length >= min && (s.maxLength === undefined || v.length <= s.maxLength));
}

function valid(s0: Schema, name = '', depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(s0);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((x) => valid(x, name, depth)));
  if (s.allOf) return valid(Object.assign({}, ...s.allOf.map(resolve)), name, depth);
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => valid({ ...s, type }, name, depth)));
  switch (types[0]) {
    case 'string':
      return stringFor(name, s);
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valid(s.items ?? {}, name, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 4, 4)),
      });
    case 'object': {
      if (depth > 4) return fc.constant({});
      const props = s.properties ?? {};
      const model = Object.fromEntries(Object.entries(props).map(([k, p]) => [k, valid(p, k, depth + 1)]));
      return fc.record(model, { requiredKeys: (s.required ?? []).filter((k) => k in props) });
    }
    default:
      throw new Error(`no valid shape for ${JSON.stringify(s).slice(0, 100)}`);
  }
}

/** Breaks one thing in a valid object: a field's type or value, a missing field, an extra key. */
function mutated(s: Schema, base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const fields = Object.keys(resolve(s).properties ?? {});
  return fc
    .tuple(
      base,
      fc.constantFrom(...(fields.length ? fields : ['x'])),
      junk,
      fc.constantFrom('replace', 'remove', 'extra', 'pollute'),
    )
    .map(([value, field, bad, how]) => {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return bad;
      const entries = Object.entries(value as Record<string, unknown>);
      if (how === 'remove') return new Entries(entries.filter(([k]) => k !== field));
      if (how === 'extra') return new Entries([...entries, [`${field}_x`, bad]]);
      if (how === 'pollute')
        return new Entries([
          ...entries,
          [POLLUTION_KEYS[field.length % POLLUTION_KEYS.length]!, new Entries([['polluted', bad]])],
        ]);
      return new Entries([...entries.filter(([k]) => k !== field), [field, bad]]);
    });
}

/** Body text: valid-shaped, broken in one place, any JSON, or not JSON at all. */
function bodyText(schema: Schema | undefined): fc.Arbitrary<string> {
  const notJson = fc.oneof(
    fc.constantFrom(
      '',
      '{',
      '{"a":}',
      'null',
      '[]',
      '"text"',
      '1',
      'true',
      '{"a":1,"a":2}',
      '\uFEFF{}',
      '{"__proto__":',
    ),
    unicode,
  );
  const shapes: Array<fc.WeightedArbitrary<unknown>> = [
    { arbitrary: junk, weight: 2 },
    { arbitrary: pollution, weight: 1 },
  ];
  if (schema) {
    let base: fc.Arbitrary<unknown> | undefined;
    try {
      base = valid(schema);
    } catch {
      // A shape this generator cannot build: the route still gets every invalid one.
    }
    if (base) shapes.push({ arbitrary: base, weight: 5 }, { arbitrary: mutated(schema, base), weight: 5 });
  }
  return fc.oneof(
    { arbitrary: fc.oneof(...shapes).map(toJson), weight: 9 },
    { arbitrary: notJson, weight: 1 },
  );
}

// ---------------------------------------------------------------------------------------------
// Requests.

const ODD_SEGMENTS = [
  '%',
  '%zz',
  '%00',
  '%2F',
  '..',
  '.',
  '..%2F..%2Fetc',
  '%E2%9C%93',
  'a%2Fb',
  '%C0%AF',
  '__proto__',
];
const pathParam = fc.oneof(
  { arbitrary: fc.constantFrom(...IDS), weight: 4 },
  {
    arbitrary: hostileString.filter((s) => s.length > 0 && s.length < 10_000).map(encodeURIComponent),
    weight: 4,
  },
  { arbitrary: fc.constantFrom(...ODD_SEGMENTS), weight: 2 },
);

function queryArb(params: Parameter[]): fc.Arbitrary<string> {
  const declared = params.filter((p) => p.in === 'query');
  const values = declared.map((p) =>
    fc.option(
      fc.oneof(
        valid(p.schema ?? { type: 'string' }, p.name).map(String),
        hostileString.filter((s) => s.length < 10_000),
      ),
      { freq: 2 },
    ),
  );
  const extra = fc.array(
    fc.tuple(fc.constantFrom(...POLLUTION_KEYS, 'a[b]', 'user_id', 'limit', ''), unicode),
    { maxLength: 2 },
  );
  return fc.tuple(fc.tuple(...values), extra).map(([vals, more]) => {
    const q = new URLSearchParams();
    declared.forEach((p, i) => {
      if (vals[i] !== null) q.append(p.name, vals[i]!);
    });
    for (const [k, v] of more) q.append(k, v);
    const text = q.toString();
    return text ? `?${text}` : '';
  });
}

interface Case {
  path: string;
  query: string;
  body: string | undefined;
  contentType: string | undefined;
  key: 'secret' | 'public' | 'none';
}

function caseArb(method: string, path: string, op: Operation): fc.Arbitrary<Case> {
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const schema = op.requestBody?.content['application/json']?.schema;
  const takesBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  const keys: Case['key'][] = (op.security ?? []).some((s) => 'publicToken' in s)
    ? ['secret', 'secret', 'public']
    : (op.security?.length ?? 0) > 0
      ? ['secret']
      : ['none', 'secret'];
  return fc.record({
    path: fc
      .tuple(...names.map(() => pathParam))
      .map((ids) => names.reduce((p, n, i) => p.replace(`{${n}}`, ids[i]!), path)),
    query: queryArb(op.parameters ?? []),
    body:
      takesBody || method === 'DELETE'
        ? fc.option(bodyText(schema), { freq: takesBody ? 20 : 3 }).map((x) => x ?? undefined)
        : fc.constant(undefined),
    contentType: fc.constantFrom<string | undefined>(
      ...(takesBody
        ? ['application/json', 'application/json', 'application/json', 'application/json; charset=utf-8']
        : []),
      'application/json',
      'text/plain',
      undefined,
    ),
    key: fc.constantFrom(...keys),
  });
}

// `policy_rule` is part of a policy_violation's documented body (docs/wallet-policies.md).
const SHAPE_KEYS = new Set([
  'status_code',
  'request_id',
  'error_type',
  'error_message',
  'error_field',
  'policy_rule',
]);
const catalogue = errorCatalogue as Record<string, { status: number }>;

async function send(method: string, c: Case) {
  const headers: Record<string, string> = {};
  if (c.key !== 'none')
    headers.authorization = `Bearer ${c.key === 'secret' ? a.t.secret_key : a.t.public_token}`;
  if (c.contentType && c.body !== undefined) headers['content-type'] = c.contentType;
  const res = await latchkey.fetch(
    new Request(`http://latchkey.test${c.path}${c.query}`, { method, headers, body: c.body }),
    { clientIp: '192.0.2.10' },
  );
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function check(id: string, c: Case, res: { status: number; headers: Headers; text: string }) {
  const where = `${id} ${c.path.slice(0, 80)}${c.query.slice(0, 80)} (${c.key}) body ${String(c.body).slice(0, 200)}`;
  // A 502/503 of a dependency this test has none of (a chain RPC) is documented; a 500 never is.
  expect(res.status, `${where} → ${res.text.slice(0, 300)}`).not.toBe(500);
  statuses.set(id, [...(statuses.get(id) ?? []), res.status]);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new Error(`${where}: not JSON: ${res.text.slice(0, 200)}`);
  }
  if (res.status < 300) return;
  const known = catalogue[String(body.error_type)];
  expect(
    {
      keys: Object.keys(body).every((k) => SHAPE_KEYS.has(k)),
      status_code: body.status_code,
      catalogued: known?.status,
      request_id: body.request_id,
      message: typeof body.error_message === 'string' && body.error_message.length > 0,
    },
    `${where} → ${res.text.slice(0, 300)}`,
  ).toEqual({
    keys: true,
    status_code: res.status,
    catalogued: res.status,
    request_id: res.headers.get('x-request-id'),
    message: true,
  });
}

/** What each route answered, printed at the end: how deep the generated calls got. */
const statuses = new Map<string, number[]>();
afterAll(() => {
  const rows = [...statuses].map(([id, list]) => {
    const count = (f: (s: number) => boolean) => list.filter(f).length;
    return {
      route: id,
      '2xx': count((s) => s < 300),
      '400': count((s) => s === 400),
      'other 4xx': count((s) => s > 400 && s < 500),
      '5xx': count((s) => s >= 500),
    };
  });
  console.log(`fuzz: ${FUZZ_RUNS} cases per route`);
  console.table(rows);
});

const prototypeKeys = () => Object.getOwnPropertyNames(Object.prototype).sort();
const cleanPrototype = prototypeKeys();

/** Requests fuzzing once answered with a 500, replayed every run. */
const FOUND: Array<{ method: string; path: string; body: unknown }> = [
  // Base64 one character past a multiple of four made atob throw.
  { method: 'POST', path: `/v1/wallets/${a.wallet_id}/export`, body: { recipient_public_key: '3cc32f8f0' } },
  { method: 'POST', path: `/v1/wallets/${a.wallet_id}/export`, body: { recipient_public_key: 'A' } },
];

describe('fuzzing every route of the OpenAPI document', () => {
  it('answers the requests fuzzing once found a 500 with', async () => {
    for (const { method, path, body } of FOUND) {
      const c: Case = {
        path,
        query: '',
        body: JSON.stringify(body),
        contentType: 'application/json',
        key: 'secret',
      };
      check(`${method} ${path}`, c, await send(method, c));
    }
  });

  it('finds the routes', () => {
    expect(operations.length).toBeGreaterThan(20);
  });

  for (const { id, method, path, op } of operations) {
    it(`${id}: ${FUZZ_RUNS} generated requests, no 5xx, the error shape, B untouched`, async () => {
      await fc.assert(
        fc.asyncProperty(caseArb(method, path, op), async (c) => {
          check(id, c, await send(method, c));
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        }),
        { numRuns: FUZZ_RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
      );
      expect(prototypeKeys()).toEqual(cleanPrototype);
      expect(await snapshotB()).toEqual(bBefore);
    }, 300_000);
  }
});
