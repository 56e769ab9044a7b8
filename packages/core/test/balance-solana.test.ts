import { afterEach, describe, expect, it } from 'vitest';
import { balanceApp, jsonRpcServer, type LocalServer, RpcError, rpcCalls } from './balance-servers.js';
import { expectErrorShape } from './helpers.js';

/**
 * Solana balances against a local server speaking Solana's JSON-RPC 2.0 as documented for
 * `getBalance` (result `{ context: { slot }, value: <lamports> }`) and `getTokenAccountsByOwner`
 * with a `{ mint }` filter and `jsonParsed` encoding (each token account's
 * `account.data.parsed.info.tokenAmount.amount`, a decimal string of atomic units). Expected
 * amounts are worked out by hand in the comments.
 */
const USDC_MAINNET = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDC_DEVNET = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const USDT_MAINNET = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

/** A token account as getTokenAccountsByOwner returns it with jsonParsed (JSON text: rentEpoch is u64::MAX). */
function tokenAccount(pubkey: string, owner: string, mint: string, amount: string, decimals: number) {
  const ui = Number(amount) / 10 ** decimals;
  return `{"pubkey":"${pubkey}","account":{"data":{"program":"spl-token","parsed":{"info":{"isNative":false,"mint":"${mint}","owner":"${owner}","state":"initialized","tokenAmount":{"amount":"${amount}","decimals":${decimals},"uiAmount":${ui},"uiAmountString":"${ui}"}},"type":"account"},"space":165},"executable":false,"lamports":2039280,"owner":"${TOKEN_PROGRAM}","rentEpoch":18446744073709551615,"space":165}}`;
}

const context = '{"apiVersion":"2.2.14","slot":341197933}';

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A Solana RPC whose state is these lamports and token accounts (as JSON text, per owner and mint). */
function solanaRpc(state: { lamports: Record<string, string>; tokens: Record<string, string[]> }) {
  return jsonRpcServer({
    getBalance: ([address, config]) => {
      if (typeof address !== 'string' || config?.commitment !== 'confirmed')
        throw new RpcError(-32602, 'Invalid params');
      return `{"context":${context},"value":${state.lamports[address] ?? '0'}}`;
    },
    getTokenAccountsByOwner: ([owner, filter, config]) => {
      if (typeof filter?.mint !== 'string' || config?.encoding !== 'jsonParsed')
        throw new RpcError(-32602, 'Invalid params: expected a mint filter and jsonParsed');
      return `{"context":${context},"value":[${(state.tokens[`${owner}/${filter.mint}`] ?? []).join(',')}]}`;
    },
  });
}

describe('solana wallets over Solana JSON-RPC', () => {
  it('reads SOL from getBalance and sums SPL token accounts of the mint', async () => {
    const state = { lamports: {} as Record<string, string>, tokens: {} as Record<string, string[]> };
    server = await solanaRpc(state);
    const t = await balanceApp({ solana: { mainnet: server.url } });
    const wallet = await t.wallet('solana');
    // 1_500_000_000 lamports / 10^9 = 1.5 SOL
    state.lamports[wallet.public_address] = '1500000000';
    // 1_000_000 + 2_500_000 = 3_500_000 atomic units / 10^6 = 3.5 USDC (two accounts of one mint)
    state.tokens[`${wallet.public_address}/${USDC_MAINNET}`] = [
      tokenAccount(
        'BGocb4GEpbTFm8UFV2VsDSaBXHELPfAXrvd4vtt8QWrA',
        wallet.public_address,
        USDC_MAINNET,
        '1000000',
        6,
      ),
      tokenAccount(
        '7UX2i7SucgLMQcfZ75s3VXmZZY4YRUyJN9X1RgfMoDUi',
        wallet.public_address,
        USDC_MAINNET,
        '2500000',
        6,
      ),
    ];

    const sol = await t.balance(wallet.id, 'solana');
    expect(sol.status).toBe(200);
    expect(sol.body).toEqual({
      balance: '1.5',
      token_symbol: 'solana',
      wallet: await t.latchkey.wallets.get(t.app_id, wallet.id),
    });
    const usdc = await t.balance(wallet.id, 'USDC');
    expect(usdc.body.balance).toBe('3.5');
    // No token account of the mint: 0.
    const usdt = await t.balance(wallet.id, 'USDT');
    expect(usdt.body.balance).toBe('0');

    const calls = rpcCalls(server);
    expect(calls.map((c) => c.method)).toEqual([
      'getBalance',
      'getTokenAccountsByOwner',
      'getTokenAccountsByOwner',
    ]);
    expect(calls[1]!.params).toEqual([
      wallet.public_address,
      { mint: USDC_MAINNET },
      { commitment: 'confirmed', encoding: 'jsonParsed' },
    ]);
    expect(calls[2]!.params[1]).toEqual({ mint: USDT_MAINNET });
  });

  it('keeps lamports beyond 2^53 exact, and gives 0 for an account never seen', async () => {
    const state = { lamports: {} as Record<string, string>, tokens: {} as Record<string, string[]> };
    server = await solanaRpc(state);
    const t = await balanceApp({ solana: { mainnet: server.url } });
    const whale = await t.wallet('solana');
    const fresh = await t.wallet('solana');
    // 12_345_678_901_234_567_891 lamports (above 2^53 ≈ 9.007e15, below 2^64 - 1): a float would
    // round it to …568000; / 10^9 = 12345678901.234567891 SOL.
    state.lamports[whale.public_address] = '12345678901234567891';
    expect((await t.balance(whale.id, 'solana')).body.balance).toBe('12345678901.234567891');
    expect((await t.balance(fresh.id, 'solana')).body.balance).toBe('0');
    // A u64 above the maximum is no balance at all.
    state.lamports[fresh.public_address] = '18446744073709551616';
    t.clock.advance(60);
    const over = await t.balance(fresh.id, 'solana');
    expect(over.status).toBe(502);
    expect(expectErrorShape(over).error_type).toBe('chain_invalid_response');
  });

  it('reads the devnet mint for a testnet wallet and refuses USDT there', async () => {
    const state = { lamports: {} as Record<string, string>, tokens: {} as Record<string, string[]> };
    server = await solanaRpc(state);
    const t = await balanceApp({ solana: { testnet: server.url } }, { wallets: { network: 'testnet' } });
    const wallet = await t.wallet('solana');
    // 42 atomic units / 10^6 = 0.000042 USDC
    state.tokens[`${wallet.public_address}/${USDC_DEVNET}`] = [
      tokenAccount(
        'BGocb4GEpbTFm8UFV2VsDSaBXHELPfAXrvd4vtt8QWrA',
        wallet.public_address,
        USDC_DEVNET,
        '42',
        6,
      ),
    ];
    expect((await t.balance(wallet.id, 'USDC')).body.balance).toBe('0.000042');
    const usdt = await t.balance(wallet.id, 'USDT');
    expect(usdt.status).toBe(400);
    expect(expectErrorShape(usdt)).toMatchObject({
      error_type: 'token_not_on_network',
      error_field: 'token_symbol',
    });
    expect(usdt.body.error_message).toContain('devnet');
  });

  it('refuses MATIC (and any token of another chain) on a solana wallet, as the spec says', async () => {
    server = await solanaRpc({ lamports: {}, tokens: {} });
    const t = await balanceApp({ solana: { mainnet: server.url } });
    const wallet = await t.wallet('solana');
    for (const token of ['MATIC', 'ethereum', 'AVAX', 'LINK', 'DOT', 'XLM']) {
      const res = await t.balance(wallet.id, token);
      expect(res.status, token).toBe(400);
      expect(expectErrorShape(res), token).toMatchObject({
        error_type: 'token_wallet_type_mismatch',
        error_field: 'token_symbol',
      });
    }
    expect(server.requests).toHaveLength(0);
  });

  it('refuses token accounts of another mint or owner, or with other decimals, instead of counting them', async () => {
    const state = { lamports: {} as Record<string, string>, tokens: {} as Record<string, string[]> };
    server = await solanaRpc(state);
    const t = await balanceApp({ solana: { mainnet: server.url }, cacheSeconds: 0 });
    const wallet = await t.wallet('solana');
    const key = `${wallet.public_address}/${USDC_MAINNET}`;
    const bad = [
      tokenAccount(
        'BGocb4GEpbTFm8UFV2VsDSaBXHELPfAXrvd4vtt8QWrA',
        wallet.public_address,
        USDT_MAINNET,
        '1',
        6,
      ),
      tokenAccount('BGocb4GEpbTFm8UFV2VsDSaBXHELPfAXrvd4vtt8QWrA', USDT_MAINNET, USDC_MAINNET, '1', 6),
      tokenAccount(
        'BGocb4GEpbTFm8UFV2VsDSaBXHELPfAXrvd4vtt8QWrA',
        wallet.public_address,
        USDC_MAINNET,
        '1',
        9,
      ),
      tokenAccount(
        'BGocb4GEpbTFm8UFV2VsDSaBXHELPfAXrvd4vtt8QWrA',
        wallet.public_address,
        USDC_MAINNET,
        '-1',
        6,
      ),
      '{"pubkey":"x","account":{"data":["AAAA","base64"]}}',
    ];
    for (const account of bad) {
      state.tokens[key] = [account];
      const res = await t.balance(wallet.id, 'USDC');
      expect(res.status, account).toBe(502);
      expect(expectErrorShape(res).error_type, account).toBe('chain_invalid_response');
    }
  });
});
