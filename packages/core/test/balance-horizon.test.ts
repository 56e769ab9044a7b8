import { afterEach, describe, expect, it } from 'vitest';
import { balanceApp, type LocalServer, localServer, sendJson } from './balance-servers.js';
import { expectErrorShape } from './helpers.js';

/**
 * XLM balances against a local server answering Horizon's `GET /accounts/{account_id}` with the
 * account object of Horizon's API reference (balances[] with `asset_type` `native` and a decimal
 * string with 7 places), and Horizon's problem+json 404 for an account that does not exist.
 */
let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const USDC_ISSUER = 'GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN';

/** An account as Horizon returns it (the fields of its API reference, abridged links). */
function horizonAccount(id: string, nativeBalance: string, base: string) {
  return JSON.stringify({
    _links: {
      self: { href: `${base}/accounts/${id}` },
      transactions: { href: `${base}/accounts/${id}/transactions{?cursor,limit,order}`, templated: true },
    },
    id,
    account_id: id,
    sequence: '3298702387052545',
    sequence_ledger: 768061,
    sequence_time: '1705000000',
    subentry_count: 1,
    last_modified_ledger: 768061,
    last_modified_time: '2024-01-11T19:06:40Z',
    thresholds: { low_threshold: 0, med_threshold: 0, high_threshold: 0 },
    flags: {
      auth_required: false,
      auth_revocable: false,
      auth_immutable: false,
      auth_clawback_enabled: false,
    },
    // A trust line first: the native entry must be picked by asset_type, not position.
    balances: [
      {
        balance: '1500.0000000',
        limit: '922337203685.4775807',
        buying_liabilities: '0.0000000',
        selling_liabilities: '0.0000000',
        last_modified_ledger: 768061,
        is_authorized: true,
        is_authorized_to_maintain_liabilities: true,
        asset_type: 'credit_alphanum4',
        asset_code: 'USDC',
        asset_issuer: USDC_ISSUER,
      },
      {
        balance: nativeBalance,
        buying_liabilities: '0.0000000',
        selling_liabilities: '0.0000000',
        asset_type: 'native',
      },
    ],
    signers: [{ weight: 1, key: id, type: 'ed25519_public_key' }],
    data: {},
    num_sponsoring: 0,
    num_sponsored: 0,
    paging_token: id,
  });
}

const NOT_FOUND = JSON.stringify({
  type: 'https://stellar.org/horizon-errors/not_found',
  title: 'Resource Missing',
  status: 404,
  detail:
    'The resource at the url requested was not found.  This usually occurs for one of two reasons:  The url requested is not valid, or no data in our database could be found with the parameters provided.',
});

/** A Horizon under `/horizon` (as providers often mount it) holding these native balances. */
function horizon(accounts: Record<string, string | (() => string)>) {
  return localServer((req, res) => {
    const match = /^\/horizon\/accounts\/(G[A-Z2-7]{55})$/.exec(req.path);
    if (req.method !== 'GET' || !match) return sendJson(res, 404, NOT_FOUND.replace('not_found', 'bad_path'));
    const entry = accounts[match[1]!];
    if (entry === undefined) {
      res.writeHead(404, { 'content-type': 'application/problem+json; charset=utf-8' }).end(NOT_FOUND);
      return;
    }
    sendJson(res, 200, typeof entry === 'function' ? entry() : horizonAccount(match[1]!, entry, 'http://x'));
  });
}

describe('XLM wallets over Stellar Horizon', () => {
  it('reads the native balance exactly, and 0 for an account never funded', async () => {
    const accounts: Record<string, string | (() => string)> = {};
    server = await horizon(accounts);
    const t = await balanceApp({ stellar: { mainnet: `${server.url}/horizon/` }, cacheSeconds: 0 });
    const wallet = await t.wallet('XLM');
    const fresh = await t.wallet('XLM');

    // "9999.9999900" XLM = 99_999_999_900 stroops; formatted without the trailing zeros: 9999.99999
    accounts[wallet.public_address] = '9999.9999900';
    const res = await t.balance(wallet.id, 'XLM');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      balance: '9999.99999',
      token_symbol: 'XLM',
      wallet: await t.latchkey.wallets.get(t.app_id, wallet.id),
    });
    // All of XLM's supply fits: 100 billion, no fraction.
    accounts[wallet.public_address] = '100000000000.0000000';
    expect((await t.balance(wallet.id, 'XLM')).body.balance).toBe('100000000000');
    // The smallest amount, one stroop.
    accounts[wallet.public_address] = '0.0000001';
    expect((await t.balance(wallet.id, 'XLM')).body.balance).toBe('0.0000001');

    const none = await t.balance(fresh.id, 'XLM');
    expect(none.status).toBe(200);
    expect(none.body.balance).toBe('0');
    expect(server.requests.map((r) => r.path)).toContain(`/horizon/accounts/${fresh.public_address}`);
  });

  it('refuses answers it cannot read exactly, and a 404 that is not Horizon saying "no such account"', async () => {
    const accounts: Record<string, string | (() => string)> = {};
    server = await horizon(accounts);
    const t = await balanceApp({ stellar: { mainnet: `${server.url}/horizon` }, cacheSeconds: 0 });
    const wallet = await t.wallet('XLM');
    const account = (native: string) => horizonAccount(wallet.public_address, native, 'http://x');
    const cases: Array<[string, () => string]> = [
      ['eight places', () => account('1.00000001')],
      ['exponent', () => account('1e3')],
      ['negative', () => account('-1.0000000')],
      ['number, not string', () => account('1').replace('"balance":"1"', '"balance":1')],
      [
        'no native entry',
        () => account('1.0000000').replace('"asset_type":"native"', '"asset_type":"credit_alphanum4"'),
      ],
      ['another account', () => horizonAccount(USDC_ISSUER, '1.0000000', 'http://x')],
      ['not JSON', () => '<html>ok</html>'],
    ];
    for (const [name, body] of cases) {
      accounts[wallet.public_address] = body;
      const res = await t.balance(wallet.id, 'XLM');
      expect(res.status, name).toBe(502);
      expect(expectErrorShape(res).error_type, name).toBe('chain_invalid_response');
    }

    // A base URL without Horizon's path: the 404 is not Horizon's not_found, so not "0".
    const wrong = await balanceApp({ stellar: { mainnet: server.url } });
    const w = await wrong.wallet('XLM');
    const res = await wrong.balance(w.id, 'XLM');
    expect(res.status).toBe(502);
    expect(expectErrorShape(res).error_type).toBe('chain_unavailable');
  });
});
