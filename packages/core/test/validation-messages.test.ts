import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validationError } from '../src/http/validation-hook.js';
import { expectErrorShape, type TestApp, testApp, testLatchkey } from './helpers.js';

/**
 * A 400 for a bad nested value names the value's full path (inside unions, discriminated unions,
 * records and arrays) and what was expected, in the documented error body; `error_field` keeps
 * the dotted path, the message reads like JSON (`rules[1].kind`).
 */
let t: TestApp;
let wallet: { id: string };

beforeAll(async () => {
  t = await testApp(testLatchkey().latchkey);
  const user = await t.call('POST', '/v1/auth/users', { email: 'nested@example.com' });
  wallet = (
    await t.call('POST', '/v1/wallets/create', { user_id: user.body.user_id, wallet_type: 'ethereum' })
  ).body;
});

const ADDRESS = `0x${'1'.repeat(40)}`;
const FIELDS = { chain_id: '1', to: ADDRESS, nonce: '0', gas_limit: '21000' };
const MAIL_TYPES = { Mail: [{ name: 'contents', type: 'string' }] };

type Row = [
  name: string,
  method: string,
  path: () => string,
  body: unknown,
  errorType: string,
  field: string,
  message: string,
];

const rows: Row[] = [
  [
    'eth_transaction type is a string',
    'POST',
    () => `/v1/wallets/${wallet.id}/sign_transaction`,
    { eth_transaction: { type: '2' } },
    'invalid_field',
    'eth_transaction.type',
    `Invalid field 'eth_transaction.type': expected one of "legacy", "eip1559", 0, 2`,
  ],
  [
    'eth_transaction fields form, bad type',
    'POST',
    () => `/v1/wallets/${wallet.id}/sign_transaction`,
    { eth_transaction: { ...FIELDS, type: 1 } },
    'invalid_field',
    'eth_transaction.type',
    `Invalid field 'eth_transaction.type': expected one of "legacy", "eip1559", 0, 2`,
  ],
  [
    'eth_transaction fields form, bad address',
    'POST',
    () => `/v1/wallets/${wallet.id}/sign_transaction`,
    { eth_transaction: { ...FIELDS, to: '0x12' } },
    'invalid_field',
    'eth_transaction.to',
    `Invalid field 'eth_transaction.to': An EVM address: 0x and 40 hex digits.`,
  ],
  [
    'eth_transaction fields form, a number where a decimal string goes',
    'POST',
    () => `/v1/wallets/${wallet.id}/sign_transaction`,
    { eth_transaction: { ...FIELDS, nonce: 7 } },
    'invalid_field',
    'eth_transaction.nonce',
    `Invalid field 'eth_transaction.nonce': expected string, received number`,
  ],
  [
    'eth_transaction serialized form, wrong type',
    'POST',
    () => `/v1/wallets/${wallet.id}/sign_transaction`,
    { eth_transaction: { serialized: 5 } },
    'invalid_field',
    'eth_transaction.serialized',
    `Invalid field 'eth_transaction.serialized': expected string, received number`,
  ],
  [
    'eth_transaction serialized form, unknown field',
    'POST',
    () => `/v1/wallets/${wallet.id}/sign_transaction`,
    { eth_transaction: { serialized: '0x1234', gas: '1' } },
    'unknown_field',
    'eth_transaction.gas',
    `Unknown field 'eth_transaction.gas'.`,
  ],
  [
    'eth_transaction not an object',
    'POST',
    () => `/v1/wallets/${wallet.id}/sign_transaction`,
    { eth_transaction: 'x' },
    'invalid_field',
    'eth_transaction',
    `Invalid field 'eth_transaction': expected object, received string`,
  ],
  [
    'sol_transaction encoding',
    'POST',
    () => `/v1/wallets/${wallet.id}/sign_transaction`,
    { sol_transaction: { transaction: 'AAAA', encoding: 'hex' } },
    'invalid_field',
    'sol_transaction.encoding',
    `Invalid field 'sol_transaction.encoding': expected one of "base64", "base58"`,
  ],
  [
    'typed data: a field type inside a record of arrays',
    'POST',
    () => `/v1/wallets/${wallet.id}/sign_typed_data`,
    {
      typed_data: {
        domain: {},
        types: {
          Mail: [
            { name: 'contents', type: 'string' },
            { name: 'to', type: 7 },
          ],
        },
        primaryType: 'Mail',
        message: {},
      },
    },
    'invalid_field',
    'typed_data.types.Mail.1.type',
    `Invalid field 'typed_data.types.Mail[1].type': expected string, received number`,
  ],
  [
    'typed data: primaryType missing',
    'POST',
    () => `/v1/wallets/${wallet.id}/sign_typed_data`,
    { typed_data: { domain: {}, types: MAIL_TYPES, message: {} } },
    'missing_field',
    'typed_data.primaryType',
    `Missing required field 'typed_data.primaryType'.`,
  ],
  [
    'policy: unknown rule kind (discriminated union)',
    'POST',
    () => '/v1/wallets/policies',
    { name: 'p', rules: [{ kind: 'allowed_methods', methods: ['sign_message'] }, { kind: 'evm_max' }] },
    'invalid_field',
    'rules.1.kind',
    `Invalid field 'rules[1].kind': expected one of "allowed_methods", "allowed_chains", `,
  ],
  [
    'policy: a number where an amount string goes',
    'POST',
    () => '/v1/wallets/policies',
    { name: 'p', rules: [{ kind: 'evm_max_value', max_wei: 5 }] },
    'invalid_field',
    'rules.0.max_wei',
    `Invalid field 'rules[0].max_wei': expected string, received number`,
  ],
  [
    'policy: an array item deep in a rule',
    'POST',
    () => '/v1/wallets/policies',
    { name: 'p', rules: [{ kind: 'evm_to_allowlist', addresses: [ADDRESS, ADDRESS, ADDRESS, 'nope'] }] },
    'invalid_field',
    'rules.0.addresses.3',
    `Invalid field 'rules[0].addresses[3]': An EVM address: 0x and 40 hex digits.`,
  ],
  [
    'policy: a rule without its kind',
    'POST',
    () => '/v1/wallets/policies',
    { name: 'p', rules: [{ max_wei: '1' }] },
    'missing_field',
    'rules.0.kind',
    `Missing required field 'rules[0].kind'.`,
  ],
  [
    'settings: a number field out of range',
    'PATCH',
    () => '/v1/app/settings',
    { otp: { expires_in_minutes: 'ten' } },
    'invalid_field',
    'otp.expires_in_minutes',
    `Invalid field 'otp.expires_in_minutes': expected number, received string`,
  ],
  [
    'settings: a route key that is no identifier',
    'PATCH',
    () => '/v1/app/settings',
    { rate_limits: { routes: { 'POST /v1/x': { limit: '5', window_seconds: 1 } } } },
    'invalid_field',
    'rate_limits.routes.POST /v1/x.limit',
    `Invalid field 'rate_limits.routes["POST /v1/x"].limit': expected number, received string`,
  ],
  [
    'settings: a list item of the wrong type',
    'PATCH',
    () => '/v1/app/settings',
    { redirect_urls: { login: ['https://a.example/cb', 5] } },
    'invalid_field',
    'redirect_urls.login.1',
    `Invalid field 'redirect_urls.login[1]': expected string, received number`,
  ],
];

describe('validation errors name the nested field and what it expects', () => {
  it.each(rows)('%s', async (_name, method, path, body, errorType, field, message) => {
    const res = await t.call(method, path(), body);
    const err = expectErrorShape(res);
    expect([err.status_code, err.error_type, err.error_field]).toEqual([400, errorType, field]);
    expect(err.error_message.startsWith(message), err.error_message).toBe(true);
    expect(err.error_message).not.toMatch(/Invalid input/);
  });

  it('never echoes a secret sent in the wrong shape: the field and the expectation only', async () => {
    const user = await t.call('POST', '/v1/auth/users', { email: 'secret-shapes@example.com' });
    const user_id = user.body.user_id;
    const secret = 'S3cr3t-V4lue-Never-Echoed';
    const long = `${secret}${'x'.repeat(400)}`;
    const cases: Array<[string, string, unknown, string, string | null]> = [
      ['POST', '/v1/auth/passwords/strength_check', { password: 98765432123 }, 'password', t.public_token],
      ['POST', '/v1/auth/passwords/strength_check', { password: [secret] }, 'password', t.public_token],
      ['POST', '/v1/auth/totps/verify', { user_id, totp_code: `${secret}123456` }, 'totp_code', null],
      ['POST', '/v1/auth/totps/recover', { user_id, recovery_code: long }, 'recovery_code', null],
      [
        'POST',
        '/v1/wallets/import',
        { user_id, wallet_type: 'ethereum', private_key: long },
        'private_key',
        null,
      ],
      [
        'POST',
        '/v1/wallets/import',
        { user_id, wallet_type: 'ethereum', mnemonic: { words: secret } },
        'mnemonic',
        null,
      ],
    ];
    for (const [method, path, body, field, key] of cases) {
      const res = await t.call(method, path, body, key ?? undefined);
      const err = expectErrorShape(res);
      expect([err.status_code, err.error_type, err.error_field], path).toEqual([400, 'invalid_field', field]);
      expect(err.error_message).toContain(`'${field}'`);
      expect(err.error_message).toMatch(/expected|Too big/);
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(secret);
      expect(text).not.toContain('98765432123');
    }
  });
});

describe('the union branch the caller meant', () => {
  const located = (schema: z.ZodType, input: unknown) => {
    const parsed = schema.safeParse(input);
    if (parsed.success) throw new Error('expected a failure');
    const err = validationError(parsed.error, 'json', input);
    return [err.errorType, err.message];
  };
  const point = z.strictObject({ x: z.number(), y: z.number(), z: z.number() });
  const label = z.strictObject({ x: z.string(), y: z.string() });

  it('is the one that knows the fields sent, then finds fewest of them wrong, then misses fewest', () => {
    // Both know x and y; the point branch finds none wrong and misses z; the label finds both wrong.
    expect(located(z.object({ v: z.union([point, label]) }), { v: { x: 1, y: 2 } })).toEqual([
      'missing_field',
      "Missing required field 'v.z'.",
    ]);
    expect(located(z.object({ v: z.union([label, point]) }), { v: { x: 1, y: 2 } })).toEqual([
      'missing_field',
      "Missing required field 'v.z'.",
    ]);
    // The wide shape takes x as sent and misses three; the narrow one has one issue, x wrong.
    const wide = z.strictObject({ x: z.number(), a: z.number(), b: z.number(), c: z.number() });
    const narrow = z.strictObject({ x: z.string() });
    expect(located(z.object({ v: z.union([narrow, wide]) }), { v: { x: 1 } })).toEqual([
      'missing_field',
      "Missing required field 'v.a'.",
    ]);
    // Both find one wrong; the label misses nothing.
    expect(located(z.object({ v: z.union([point, label]) }), { v: { x: 'a', y: 2 } })).toEqual([
      'invalid_field',
      "Invalid field 'v.y': expected string, received number",
    ]);
    // Both know one field of three: in the label, a wrong value is said before the unknown q.
    expect(located(z.object({ v: z.union([label, point]) }), { v: { x: 5, y: 'b', q: 1 } })).toEqual([
      'invalid_field',
      "Invalid field 'v.x': expected string, received number",
    ]);
    // Only the point knows z.
    expect(located(z.object({ v: z.union([label, point]) }), { v: { x: 'a', z: 1 } })).toEqual([
      'invalid_field',
      "Invalid field 'v.x': expected number, received string",
    ]);
  });

  it("keeps a schema's own message, and lists zod's options itself", () => {
    const colour = z.enum(['red', 'blue'], { error: 'A colour: red or blue.' });
    expect(located(z.object({ c: colour }), { c: 'green' })).toEqual([
      'invalid_field',
      "Invalid field 'c': A colour: red or blue.",
    ]);
    expect(located(z.object({ c: z.enum(['red', 'blue']) }), { c: 'green' })).toEqual([
      'invalid_field',
      `Invalid field 'c': expected one of "red", "blue"`,
    ]);
  });

  it('names every branch when each refused the value itself', () => {
    expect(located(z.object({ v: z.union([z.string(), z.number(), z.literal(true)]) }), { v: null })).toEqual(
      ['invalid_field', "Invalid field 'v': expected true or string or number"],
    );
  });
});
