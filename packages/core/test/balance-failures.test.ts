import { createServer } from 'node:net';
import { createLatchkey } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { balanceApp, type Handler, type LocalServer, localServer, sendJson } from './balance-servers.js';
import { expectErrorShape, TEST_SECRET, testApp } from './helpers.js';

/**
 * Upstream failures on the way to a balance: each becomes a documented 502 or 504 with its own
 * error_type, after a bounded number of attempts, and never a 500 or a number that was not read.
 * The endpoint is an Ethereum-style JSON-RPC server whose eth_getBalance answer each case sets.
 */
let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SECRET_PATH = '/v3/sk-SECRET-IN-URL';
const ok = (id: unknown, result: string) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;

/** A node that answers eth_chainId with 1 and eth_getBalance as `balance` says. */
function evmNode(balance: Handler) {
  return localServer(async (req, res, raw) => {
    const call = JSON.parse(req.body);
    if (call.method === 'eth_chainId') return sendJson(res, 200, ok(call.id, '"0x1"'));
    return balance(req, res, raw);
  });
}

const balanceCalls = (s: LocalServer) => s.requests.filter((r) => r.body.includes('eth_getBalance')).length;

async function appFor(url: string, extra: Record<string, unknown> = {}) {
  const t = await balanceApp({ ethereum: { mainnet: `${url}${SECRET_PATH}` }, cacheSeconds: 0, ...extra });
  const wallet = await t.wallet('ethereum');
  return { t, wallet };
}

/** Asserts the documented error, that the URL's secret is nowhere, and returns the body. */
function expectUpstreamError(
  res: { status: number; body: any; headers: Headers },
  status: number,
  errorType: string,
  reported: unknown[],
) {
  expect(res.status).toBe(status);
  const body = expectErrorShape(res);
  expect(body.error_type).toBe(errorType);
  expect(JSON.stringify(body)).not.toContain('SECRET');
  for (const err of reported) expect(String(err)).not.toContain('SECRET');
  return body;
}

describe('upstream timeouts', () => {
  it('answers 504 chain_timeout when the node never answers, after 1 + retries attempts', async () => {
    server = await evmNode(() => {});
    const { t, wallet } = await appFor(server.url, { timeoutMs: 150, retries: 1 });
    const started = Date.now();
    const res = await t.balance(wallet.id, 'ethereum');
    expectUpstreamError(res, 504, 'chain_timeout', t.internalErrors);
    expect(res.body.error_message).toContain('ethereum mainnet');
    expect(balanceCalls(server)).toBe(2);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('times out a body that starts and then stalls', async () => {
    server = await evmNode((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0","id":');
    });
    const { t, wallet } = await appFor(server.url, { timeoutMs: 150, retries: 0 });
    expectUpstreamError(await t.balance(wallet.id, 'ethereum'), 504, 'chain_timeout', t.internalErrors);
  });

  it('takes a per-endpoint timeout over the default', async () => {
    server = await evmNode(() => {});
    const t = await balanceApp({
      ethereum: { mainnet: { url: server.url, timeoutMs: 100, retries: 0 } },
      timeoutMs: 60_000,
    });
    const wallet = await t.wallet('ethereum');
    const started = Date.now();
    expectUpstreamError(await t.balance(wallet.id, 'ethereum'), 504, 'chain_timeout', t.internalErrors);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('upstream HTTP failures', () => {
  it('retries a 500 and gives 502 chain_unavailable when it persists', async () => {
    server = await evmNode((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
    });
    const { t, wallet } = await appFor(server.url);
    const body = expectUpstreamError(
      await t.balance(wallet.id, 'ethereum'),
      502,
      'chain_unavailable',
      t.internalErrors,
    );
    expect(body.error_message).toContain('HTTP 500');
    // The default: two retries.
    expect(balanceCalls(server)).toBe(3);
    // Nothing was cached or broken: the app still answers.
    expect((await t.call('GET', '/v1/health', undefined, null)).status).toBe(200);
  });

  it('recovers when a retry succeeds (503, then 429, then an answer)', async () => {
    let n = 0;
    server = await evmNode((req, res) => {
      n++;
      if (n === 1) return void res.writeHead(503).end();
      if (n === 2) return void res.writeHead(429, { 'retry-after': '1' }).end();
      sendJson(res, 200, ok(JSON.parse(req.body).id, '"0xde0b6b3a7640000"'));
    });
    const { t, wallet } = await appFor(server.url);
    const res = await t.balance(wallet.id, 'ethereum');
    expect(res.status).toBe(200);
    expect(res.body.balance).toBe('1');
  });

  it('does not retry a refusal such as 401 (a bad API key)', async () => {
    server = await evmNode((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"invalid project id"}');
    });
    const { t, wallet } = await appFor(server.url);
    const body = expectUpstreamError(
      await t.balance(wallet.id, 'ethereum'),
      502,
      'chain_unavailable',
      t.internalErrors,
    );
    expect(body.error_message).toContain('HTTP 401');
    expect(balanceCalls(server)).toBe(1);
  });

  it('gives 502 chain_unavailable when nothing listens at the endpoint', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const { t, wallet } = await appFor(`http://127.0.0.1:${port}`, { retries: 1 });
    expectUpstreamError(await t.balance(wallet.id, 'ethereum'), 502, 'chain_unavailable', t.internalErrors);
  });
});

describe('malformed answers', () => {
  const cases: Array<[string, (id: unknown) => string, string]> = [
    ['not JSON', () => '<html>Bad gateway</html>', 'chain_invalid_response'],
    ['empty body', () => '', 'chain_invalid_response'],
    ['a JSON array', () => '[]', 'chain_invalid_response'],
    ['another id', (id) => ok(Number(id) + 1, '"0x1"'), 'chain_invalid_response'],
    ['no jsonrpc', (id) => `{"id":${id},"result":"0x1"}`, 'chain_invalid_response'],
    ['neither result nor error', (id) => `{"jsonrpc":"2.0","id":${id}}`, 'chain_invalid_response'],
    ['a number, not a quantity', (id) => ok(id, '5'), 'chain_invalid_response'],
    ['an empty quantity', (id) => ok(id, '"0x"'), 'chain_invalid_response'],
    ['not hex', (id) => ok(id, '"0xZZ"'), 'chain_invalid_response'],
    ['negative', (id) => ok(id, '"-0x1"'), 'chain_invalid_response'],
    ['decimal', (id) => ok(id, '"1000"'), 'chain_invalid_response'],
    ['wider than 256 bits', (id) => ok(id, `"0x1${'0'.repeat(64)}"`), 'chain_invalid_response'],
    ['null', (id) => ok(id, 'null'), 'chain_invalid_response'],
    ['truncated', (id) => ok(id, '"0x1"').slice(0, -3), 'chain_invalid_response'],
    ['over 1 MiB', (id) => ok(id, `"0x1","pad":"${'x'.repeat(1_100_000)}"`), 'chain_invalid_response'],
    [
      'a JSON-RPC error',
      (id) => `{"jsonrpc":"2.0","id":${id},"error":{"code":-32000,"message":"header not found"}}`,
      'chain_unavailable',
    ],
  ];

  it.each(cases)('answers %s with a documented 502', async (_name, answer, errorType) => {
    server = await evmNode((req, res) => sendJson(res, 200, answer(JSON.parse(req.body).id)));
    const { t, wallet } = await appFor(server.url);
    const body = expectUpstreamError(
      await t.balance(wallet.id, 'ethereum'),
      502,
      errorType,
      t.internalErrors,
    );
    expect(body.error_message).toContain('ethereum mainnet');
    // Answered, though wrongly: not retried.
    expect(balanceCalls(server)).toBe(1);
  });
});

describe('the balance cache', () => {
  it('reuses a balance for cacheSeconds, joins concurrent reads, and keeps no failures', async () => {
    let wei = 1n;
    let fail = false;
    server = await evmNode((req, res) => {
      if (fail) return void res.writeHead(500).end();
      sendJson(res, 200, ok(JSON.parse(req.body).id, `"0x${wei.toString(16)}"`));
    });
    const t = await balanceApp({ ethereum: { mainnet: server.url }, cacheSeconds: 10, retries: 0 });
    const wallet = await t.wallet('ethereum');

    const first = await Promise.all([1, 2, 3, 4, 5].map(() => t.balance(wallet.id, 'ethereum')));
    expect(first.map((r) => r.body.balance)).toEqual(Array(5).fill('0.000000000000000001'));
    expect(balanceCalls(server)).toBe(1);

    wei = 2n;
    t.clock.advance(9);
    expect((await t.balance(wallet.id, 'ethereum')).body.balance).toBe('0.000000000000000001');
    expect(balanceCalls(server)).toBe(1);
    t.clock.advance(2);
    expect((await t.balance(wallet.id, 'ethereum')).body.balance).toBe('0.000000000000000002');
    expect(balanceCalls(server)).toBe(2);

    // A failure is not kept: once the node recovers, the next read goes to it.
    t.clock.advance(11);
    fail = true;
    expect((await t.balance(wallet.id, 'ethereum')).status).toBe(502);
    fail = false;
    wei = 3n;
    expect((await t.balance(wallet.id, 'ethereum')).body.balance).toBe('0.000000000000000003');
  });
});

describe('configuration and request errors', () => {
  it('answers 503 chain_not_configured, naming the option to set', async () => {
    const t = await balanceApp({});
    const wallet = await t.wallet('ethereum');
    const res = await t.balance(wallet.id, 'AVAX');
    expect(res.status).toBe(503);
    expect(expectErrorShape(res).error_type).toBe('chain_not_configured');
    expect(res.body.error_message).toContain('chains.avalanche.mainnet');
  });

  it('answers 404 for an unknown wallet or another App’s, 403 for a public token, 400 for an unknown symbol', async () => {
    const t = await balanceApp({});
    const other = await balanceApp({});
    const wallet = await other.wallet('ethereum');
    for (const id of ['wallet_nope', wallet.id]) {
      const res = await t.balance(id, 'ethereum');
      expect(res.status).toBe(404);
      expect(expectErrorShape(res).error_type).toBe('wallet_not_found');
    }
    const pub = await other.call(
      'POST',
      '/v1/wallets/balance',
      { wallet_id: wallet.id, token_symbol: 'ethereum' },
      other.public_token,
    );
    expect(pub.status).toBe(403);
    for (const symbol of ['ETH', 'eth', 'usdc', 'BTC', '']) {
      const res = await other.balance(wallet.id, symbol);
      expect(res.status, symbol).toBe(400);
      expect(expectErrorShape(res)).toMatchObject({
        error_type: 'invalid_field',
        error_field: 'token_symbol',
      });
    }
  });

  it('uses a host ChainClient given in place of a URL, and maps its failures to 502', async () => {
    let next: () => Promise<bigint> = async () => 42n;
    const queries: unknown[] = [];
    const t = await balanceApp({
      ethereum: {
        mainnet: {
          getBalance: (q: unknown) => {
            queries.push(q);
            return next();
          },
        },
      },
      cacheSeconds: 0,
    });
    const wallet = await t.wallet('ethereum');
    const res = await t.balance(wallet.id, 'USDC');
    expect(res.body.balance).toBe('0.000042');
    expect(queries).toEqual([
      {
        address: wallet.public_address,
        asset: { contract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
        decimals: 6,
      },
    ]);
    next = () => Promise.reject(new Error('socket hang up'));
    expectUpstreamError(await t.balance(wallet.id, 'USDC'), 502, 'chain_unavailable', []);
    next = async () => -1n;
    expectUpstreamError(await t.balance(wallet.id, 'USDC'), 502, 'chain_invalid_response', []);
  });

  it('refuses bad chains options when Latchkey is built', () => {
    const build = (chains: unknown) => () =>
      createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET, chains: chains as never });
    expect(build({ ethereum: { mainnet: 'not a url' } })).toThrow();
    expect(build({ ethereum: { mainnet: 'ftp://node.example' } })).toThrow();
    expect(build({ etherum: { mainnet: 'https://node.example' } })).toThrow();
    expect(build({ ethereum: { mainet: 'https://node.example' } })).toThrow();
    expect(build({ timeoutMs: 0 })).toThrow();
    expect(build({ retries: 9 })).toThrow();
    expect(
      build({ solana: { testnet: { url: 'https://node.example', headers: { 'x-api-key': 'k' } } } }),
    ).not.toThrow();
  });

  it('lists the balance route in the OpenAPI document with its upstream errors', async () => {
    const t = await testApp();
    const doc = (await t.call('GET', '/v1/openapi.json', undefined, null)).body;
    const op = doc.paths['/v1/wallets/balance'].post;
    expect(Object.keys(op.responses)).toEqual(
      expect.arrayContaining(['200', '400', '404', '502', '503', '504']),
    );
    expect(op.responses['502'].description).toContain('chain_invalid_response');
    expect(op.responses['504'].description).toContain('chain_timeout');
  });
});
