import { Kysely, PostgresDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database, LatchkeyDb } from '../src/database.js';
import {
  compileOn,
  defineStatement,
  instantiate,
  type StatementDefinition,
  templateOf,
} from '../src/prepared-statements.js';
import * as walletStatements from '../src/prepared-wallet-statements.js';
import * as contacts from '../src/repos/contact-repo.js';
import { insertEvent } from '../src/repos/event-repo.js';
import * as magicLinks from '../src/repos/magic-link-repo.js';
import * as oauth from '../src/repos/oauth-repo.js';
import * as otps from '../src/repos/otp-repo.js';
import * as passwords from '../src/repos/password-repo.js';
import * as rateLimits from '../src/repos/rate-limit-repo.js';
import * as sessions from '../src/repos/session-repo.js';
import * as totps from '../src/repos/totp-repo.js';
import * as users from '../src/repos/user-repo.js';
import * as walletChallenges from '../src/repos/wallet-challenge-repo.js';
import * as wallets from '../src/repos/wallet-repo.js';
import * as webauthn from '../src/repos/webauthn-repo.js';

/**
 * A statement compiled once must be, on every call, the statement Kysely would build for that
 * call: same text, same parameters. Compared here for every hot statement, on values that differ
 * from the markers in every way the calls' do (nulls, numbers, JSON, several shapes). Nothing
 * connects: compiling needs only the dialect.
 */
const root = new Kysely<Database>({ dialect: new PostgresDialect({ pool: {} as never }) });
const dbs: Array<[string, LatchkeyDb]> = [
  ['no schema', root],
  ['a schema', root.withSchema('tenant_a')],
];

const events = JSON.stringify([
  { id: 'e1', app_id: 'a', type: 'user.created', data: { x: 1 }, created_at: 5 },
]);
const sessionRow = ['s1', 'a', 'u', 'th', 1, 2, 3, '[]', null, null, 1, 1];
const device = [['ip'], ['ip?'], ['ip', 'user_agent'], []];

type Case = [
  name: string,
  def: StatementDefinition<never, unknown, never>,
  params: unknown[],
  shape?: unknown,
];
const cases: Case[] = [
  ['session by id', sessions.lookupOne, ['a', 's'], 'id'],
  ['session by token', sessions.lookupOne, ['a', 't'], 'token_hash'],
  [
    'sessions grouped',
    sessions.lookupMany,
    [
      ['a', 'b'],
      ['s', 't'],
    ],
    'token_hash',
  ],
  ['one session with events', sessions.insertSessions, [...sessionRow, events], 1],
  ['three sessions', sessions.insertSessions, [...sessionRow, ...sessionRow, ...sessionRow, '[]'], 3],
  [
    'rate limit, windows, committed early',
    rateLimits.hitMany,
    ['[{"key":"k","window_start":1,"lim":2,"ord":0}]'],
    { schema: 'tenant_a', early: true },
  ],
  ['rate limit, windows, durable', rateLimits.hitMany, ['[]'], { schema: 'tenant_a', early: false }],
  ['rate limit, windows, search path', rateLimits.hitMany, ['[]'], { schema: undefined, early: true }],
  ...(['emails', 'phone_numbers'] as const).flatMap((table): Case[] => [
    [
      `${table} find or create`,
      contacts.findOrCreate,
      ['a', 'x@y', 'c', 'u', null, 1, 'u', 'a', '{"first_name":"A"}', 'active', 1, 1, events],
      { table, events: true },
    ],
    [
      `${table} find or create, no events`,
      contacts.findOrCreate,
      ['a', 'x@y', 'c', 'u', 7, 1, 'u', 'a', null, 'pending', 1, 1, undefined],
      { table, events: false },
    ],
    [
      `${table} find or create with the first code`,
      contacts.findOrCreate,
      [
        ...['a', 'x@y', 'c', 'u', null, 1, 'u', 'a', null, 'active', 1, 1, events],
        ...['o', 'a', 'h', 0, 600, null, '{"ip":"192.0.2.1"}', 1],
      ],
      { table, events: true, first: 'otp' },
    ],
    [
      `${table} find or create with the first link, no events`,
      contacts.findOrCreate,
      [
        ...['a', 'x@y', 'c', 'u', null, 1, 'u', 'a', null, 'pending', 1, 1, undefined],
        ...['m', 'a', 'th', 'signup', 3600, null, 0, null, 1],
      ],
      { table, events: false, first: 'link' },
    ],
    [`${table} by address`, contacts.byAddress, ['a', 'x@y'], table],
    [`${table} verified`, contacts.markVerified, [9, 'a', 'c'], table],
    [`${table} verified with its event`, contacts.markVerifiedWithEvents, [9, 'a', 'c', events], table],
  ]),
  ['otp replace', otps.replace, ['o', 'a', 'm', 'u', 'h', 0, 9, null, '{"ip":"1.2.3.4"}', 1]],
  ...device.flatMap((shape): Case[] => [
    [
      `otp consume [${shape}]`,
      otps.consume,
      [5, 10, 'h', 'a', 'm', events, ...shape.map((s) => (s.endsWith('?') ? undefined : `v-${s}`))],
      { device: shape, events: true },
    ],
    [
      `otp consume [${shape}], no events`,
      otps.consume,
      [5, 10, 'h', 'a', 'm', undefined, ...shape.map((s) => (s.endsWith('?') ? undefined : `v-${s}`))],
      { device: shape, events: false },
    ],
    [
      `magic link consume [${shape}]`,
      magicLinks.consume,
      [5, 10, 'a', 'th', ...shape.map((s) => (s.endsWith('?') ? undefined : `v-${s}`))],
      shape,
    ],
  ]),
  ['magic link insert', magicLinks.insert, ['l', 'a', 'u', 'e', 'th', 'login', 9, null, 0, null, 1]],
  [
    'oauth flow insert',
    oauth.insertFlow,
    [
      'f',
      'a',
      'p',
      'sh',
      null,
      'cv',
      null,
      'https://l',
      'https://s',
      null,
      9,
      null,
      null,
      null,
      null,
      null,
      null,
      false,
      1,
    ],
  ],
  [
    'oauth flow insert, every value set',
    oauth.insertFlow,
    [
      'f',
      'a',
      'p',
      'sh',
      'n',
      'cv',
      'cc',
      'https://l',
      'https://s',
      'u',
      9,
      2,
      'th',
      9,
      3,
      'u',
      'l',
      true,
      1,
    ],
  ],
  ['oauth state spent', oauth.spendState, [10, 'sh']],
  ['oauth state use', oauth.stateUse, ['sh']],
  ['oauth flow finished', oauth.finishFlow, ['th', 9, 'u', 'l', true, 'a', 'f']],
  ['oauth link by identity', oauth.linkByIdentity, ['a', 'https://issuer', 'sub']],
  ['oauth token spent', oauth.spendToken, [10, 'a', 'th']],
  ['oauth token use', oauth.tokenUse, ['a', 'th']],
  ['oauth link', oauth.linkById, ['a', 'l']],
  ['user', users.byId, ['a', 'u']],
  ['user with methods', users.withMethods, ['a', 'u']],
  ['oauth links of a user', oauth.linksOfUser, ['a', 'u']],
  ['event', insertEvent, [events]],
  ['totp for user', totps.forUser, ['a', 'u']],
  ['totp code check', totps.codeCheck, [5, 900, 'a', 't', 600]],
  ['totp step used', totps.useStep, [42, 'a', 't']],
  [
    'wallet challenge insert',
    walletChallenges.insert,
    ['c', 'a', 'ethereum', '0xab', 'n', 'm', null, 9, null, 1],
  ],
  ['wallet challenge consume', walletChallenges.consume, [10, 'a', 'n']],
  ['wallet challenge by nonce', walletChallenges.byNonce, ['a', 'n']],
  ['wallet challenges expired', walletChallenges.deleteExpired, ['a', 10]],
  ['wallet by address', wallets.byAddress, ['a', 'ethereum', '0xab']],
  ['wallets of an App', wallets.walletPage, ['a', undefined, undefined, 101], { user: false, after: false }],
  ['wallets of an App, after', wallets.walletPage, ['a', undefined, 'w', 11], { user: false, after: true }],
  ['wallets of a user', wallets.walletPage, ['a', 'u', undefined, 101], { user: true, after: false }],
  ['wallets of a user, after', wallets.walletPage, ['a', 'u', 'w', 2], { user: true, after: true }],
  [
    'passkey challenge insert',
    webauthn.insertChallenge,
    ['c', 'a', null, 'h', 'authentication', 'localhost', 'preferred', null, 9, null, 1],
  ],
  ['passkey challenges expired', webauthn.deleteExpiredChallenges, ['a', 10]],
  ['default wallet and seed', walletStatements.defaultWalletAndSeed, ['a', 'u', 'ethereum']],
  [
    'seed and wallet insert',
    walletStatements.insertSeedAndWallet,
    ['a', 'u', 'ethereum', '{"id":"s"}', '{"id":"w"}', events],
  ],
  [
    'seed and wallet insert, no events',
    walletStatements.insertSeedAndWallet,
    ['a', 'u', 'ethereum', '{"id":"s"}', '{"id":"w"}', '[]'],
  ],
  ['password check begun', passwords.beginCheck, [5, 900, 'a', 'u', 600]],
  ['password succeeded', passwords.succeeded, ['a', 'u'], false],
  ['password succeeded, rehashed', passwords.succeeded, ['a', 'u', 'h1', 'h2', 600], true],
];

describe.each(dbs)('statements compiled once (%s)', (_, db) => {
  it.each(cases)('%s: the text and values Kysely builds for the call', (_, def, params, shape) => {
    const template = templateOf(db, def, params.length, shape as never);
    expect(template).not.toBeNull();
    const built = compileOn(db, def.build(db, params as never, shape as never));
    const once = instantiate(template!, params);
    expect(once.sql).toBe(built.sql);
    expect(once.parameters).toEqual(built.parameters);
  });
});

describe('a statement whose text or values depend on its values', () => {
  const db = dbs[1]![1];
  it('is not compiled once when it changes a value (built per call instead)', () => {
    const derived = defineStatement((d, [name]: [string]) =>
      d.selectFrom('users').select('id').where('name', '=', JSON.stringify(name)),
    );
    expect(templateOf(db, derived, 1, undefined)).toBeNull();
  });
  it('is not compiled once when its text depends on a value', () => {
    const branching = defineStatement((d, [id]: [string]) =>
      d
        .selectFrom('users')
        .select('id')
        .where('id', '=', id)
        .orderBy(id.endsWith('a') ? 'id' : 'status'),
    );
    expect(templateOf(db, branching, 1, undefined)).toBeNull();
  });
  it('keeps constants of the text as they are', () => {
    const constant = defineStatement((d, [id]: [string]) =>
      d.selectFrom('users').select('id').where('status', '=', 'active').where('id', '=', id),
    );
    const template = templateOf(db, constant, 1, undefined)!;
    expect(instantiate(template, ['u1']).parameters).toEqual(['active', 'u1']);
  });
});
