import { blake2AsU8a, encodeAddress, xxhashAsU8a } from '@polkadot/util-crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { balanceApp, jsonRpcServer, type LocalServer, RpcError, rpcCalls } from './balance-servers.js';
import { expectErrorShape } from './helpers.js';

/**
 * DOT balances against a local server speaking Substrate JSON-RPC: `state_getStorage(key)`
 * answers the SCALE bytes stored under the key, or null. The bytes are built here by hand from
 * the documented layout of `frame_system::AccountInfo<Nonce = u32, AccountData<Balance = u128>>`:
 * nonce, consumers, providers, sufficients (u32 LE each), then pallet_balances' AccountData
 * free, reserved, frozen, flags (u128 LE each): 80 bytes.
 */
const ALICE_PUBLIC_KEY = 'd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d';
// The System.Account key of Alice (//Alice, the development account), as published in Substrate's
// storage documentation and many client libraries' tests:
// twox128("System") ++ twox128("Account") ++ blake2_128(id) ++ id.
const ALICE_ACCOUNT_KEY =
  '0x26aa394eea5630e07c48ae0c9558cef7b99d880ec681799c0cf30e8886371da9de1e86a9a8c739864cf3cc5ec2bea59fd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const le = (value: bigint, bytes: number) => {
  const out = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++, value >>= 8n) out[i] = Number(value & 0xffn);
  return out;
};

/** SCALE encoding of AccountInfo, by the layout above. */
function accountInfo(a: {
  nonce: number;
  consumers: number;
  providers: number;
  sufficients: number;
  free: bigint;
  reserved: bigint;
  frozen: bigint;
  flags: bigint;
}): string {
  return `0x${hex(
    new Uint8Array([
      ...le(BigInt(a.nonce), 4),
      ...le(BigInt(a.consumers), 4),
      ...le(BigInt(a.providers), 4),
      ...le(BigInt(a.sufficients), 4),
      ...le(a.free, 16),
      ...le(a.reserved, 16),
      ...le(a.frozen, 16),
      ...le(a.flags, 16),
    ]),
  )}`;
}

/** The key by the polkadot.js hashers (an independent oracle). */
const oracleKey = (accountId: Uint8Array) =>
  `0x${hex(xxhashAsU8a('System', 128))}${hex(xxhashAsU8a('Account', 128))}${hex(blake2AsU8a(accountId, 128))}${hex(accountId)}`;

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function substrateRpc(storage: Record<string, string>) {
  return jsonRpcServer({
    state_getStorage: ([key]) => {
      if (typeof key !== 'string' || !/^0x([0-9a-f]{2})+$/.test(key))
        throw new RpcError(-32602, 'Invalid params');
      return JSON.stringify(storage[key] ?? null);
    },
  });
}

describe('DOT wallets over Substrate JSON-RPC (System.Account)', () => {
  it("reads Alice's free balance from the documented storage key and hand-built SCALE bytes", async () => {
    const storage: Record<string, string> = {};
    server = await substrateRpc(storage);
    const t = await balanceApp({ polkadot: { mainnet: server.url } });
    // A read-only wallet (an address proved at sign-in) for Alice's account on Polkadot (prefix 0).
    const alice = encodeAddress(Buffer.from(ALICE_PUBLIC_KEY, 'hex'), 0);
    expect(alice).toBe('15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5');
    await t.latchkey.storage.wallets.insert({
      id: 'wallet_alice',
      app_id: t.app_id,
      user_id: 'user_alice',
      wallet_type: 'DOT',
      network: 'mainnet',
      public_address: alice,
      key_source: 'external',
      derivation_path: null,
      key_id: null,
      sealed_private_key: null,
      is_default: false,
      is_imported: false,
      is_read_only: true,
      verified: true,
      created_at: 1,
      updated_at: 1,
    });
    // free = 2^60 = 1_152_921_504_606_846_976 planck (a dev chain's endowment);
    // / 10^10 = 115292150.4606846976 DOT. Reserved, frozen and the flags word are not free balance.
    storage[ALICE_ACCOUNT_KEY] = accountInfo({
      nonce: 7,
      consumers: 1,
      providers: 1,
      sufficients: 0,
      free: 1n << 60n,
      reserved: 12_345n,
      frozen: 10n ** 12n,
      flags: 1n << 127n,
    });
    const res = await t.balance('wallet_alice', 'DOT');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      balance: '115292150.4606846976',
      token_symbol: 'DOT',
      wallet: { id: 'wallet_alice', public_address: alice, is_read_only: true },
    });
    expect(rpcCalls(server)).toEqual([
      { jsonrpc: '2.0', id: expect.any(Number), method: 'state_getStorage', params: [ALICE_ACCOUNT_KEY] },
    ]);
    expect(oracleKey(Buffer.from(ALICE_PUBLIC_KEY, 'hex'))).toBe(ALICE_ACCOUNT_KEY);
  });

  it('reads a created wallet by the key the polkadot.js hashers give, and 0 when there is no entry', async () => {
    const storage: Record<string, string> = {};
    server = await substrateRpc(storage);
    const t = await balanceApp({ polkadot: { mainnet: server.url }, cacheSeconds: 0 });
    const wallet = await t.wallet('DOT');
    expect((await t.balance(wallet.id, 'DOT')).body.balance).toBe('0');

    const { decodeAddress } = await import('@polkadot/util-crypto');
    const key = oracleKey(decodeAddress(wallet.public_address));
    // 30_000_000_001 planck / 10^10 = 3.0000000001 DOT
    storage[key] = accountInfo({
      nonce: 0,
      consumers: 0,
      providers: 1,
      sufficients: 0,
      free: 30_000_000_001n,
      reserved: 0n,
      frozen: 0n,
      flags: 0n,
    });
    expect((await t.balance(wallet.id, 'DOT')).body.balance).toBe('3.0000000001');
    // The largest u128 free balance converts exactly: (2^128 - 1) / 10^10.
    storage[key] = accountInfo({
      nonce: 0,
      consumers: 0,
      providers: 1,
      sufficients: 0,
      free: 2n ** 128n - 1n,
      reserved: 0n,
      frozen: 0n,
      flags: 0n,
    });
    expect((await t.balance(wallet.id, 'DOT')).body.balance).toBe('34028236692093846346337460743.1768211455');

    // Bytes that are not an AccountInfo (a layout from another runtime, or truncated): an error.
    for (const bad of [storage[key]!.slice(0, -2), `${storage[key]}00`, '0xzz', '42']) {
      storage[key] = bad;
      const res = await t.balance(wallet.id, 'DOT');
      expect(res.status, bad.slice(-6)).toBe(502);
      expect(expectErrorShape(res).error_type).toBe('chain_invalid_response');
    }
  });

  it('reads Paseo for a testnet DOT wallet from its own endpoint', async () => {
    const storage: Record<string, string> = {};
    server = await substrateRpc(storage);
    const t = await balanceApp({ polkadot: { testnet: server.url } }, { wallets: { network: 'testnet' } });
    const wallet = await t.wallet('DOT');
    const { decodeAddress } = await import('@polkadot/util-crypto');
    // 5 planck / 10^10 = 0.0000000005
    storage[oracleKey(decodeAddress(wallet.public_address))] = accountInfo({
      nonce: 0,
      consumers: 0,
      providers: 1,
      sufficients: 0,
      free: 5n,
      reserved: 0n,
      frozen: 0n,
      flags: 0n,
    });
    expect((await t.balance(wallet.id, 'DOT')).body.balance).toBe('0.0000000005');
    // The mainnet endpoint is not configured: a mainnet wallet gets chain_not_configured.
    const main = await balanceApp({ polkadot: { testnet: server.url } });
    const mainWallet = await main.wallet('DOT');
    const res = await main.balance(mainWallet.id, 'DOT');
    expect(res.status).toBe(503);
    expect(expectErrorShape(res).error_type).toBe('chain_not_configured');
  });
});
