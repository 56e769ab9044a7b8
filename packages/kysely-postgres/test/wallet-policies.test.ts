import { createLatchkey, type Latchkey } from '@latchkey/core';
import { base58 } from '@scure/base';
import { Keypair, PublicKey, SystemProgram, Transaction, VersionedTransaction } from '@solana/web3.js';
import { Transaction as EthTransaction, Interface } from 'ethers';
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, targets } from './targets.js';

const BLOCKHASH = base58.encode(new Uint8Array(32).fill(7));
const SECRET = 'wallet-policies-test-secret-0123456789abcdef';

const transfer = (from: string, lamports: number) => {
  const payer = new PublicKey(from);
  return Buffer.from(
    new Transaction({ feePayer: payer, recentBlockhash: BLOCKHASH })
      .add(SystemProgram.transfer({ fromPubkey: payer, toPubkey: Keypair.generate().publicKey, lamports }))
      .serialize({ requireAllSignatures: false, verifySignatures: false }),
  ).toString('base64');
};

/**
 * Policies and the audit trail through HTTP on each backend. With Postgres, two Latchkey
 * instances (two pools, as two processes would have) race on one wallet's daily cap.
 */
describe.each(targets)('wallet policies on $name', (target) => {
  let h: Harness;
  let a: Latchkey;
  let b: Latchkey;
  let secretKey: string;

  const call = async (latchkey: Latchkey, method: string, path: string, body?: unknown, key = secretKey) => {
    const res = await latchkey.fetch(
      new Request(`http://latchkey.test${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    return { status: res.status, body: (await res.json()) as any };
  };

  const newWallet = async () => {
    const user = await call(a, 'POST', '/v1/auth/users', {
      email: `${Math.random().toString(36).slice(2)}@example.com`,
    });
    return (
      await call(a, 'POST', '/v1/wallets/create', { user_id: user.body.user_id, wallet_type: 'solana' })
    ).body as { id: string; public_address: string };
  };

  beforeAll(async () => {
    h = await target.open();
    a = createLatchkey({ storage: h.storage, secret: SECRET });
    b = a;
    if (target.name === 'postgres') {
      // A second Storage on the same schema: its own pool, as another process would have.
      const { postgresStorage } = await import('../src/index.js');
      b = createLatchkey({
        storage: await postgresStorage(process.env.DATABASE_URL!, { schema: h.schema, pool: { max: 10 } }),
        secret: SECRET,
      });
    }
    secretKey = (await a.apps.create({ name: 'Policies' })).secret_key;
  });
  afterAll(async () => {
    if (b !== a) await b.close();
    await h?.dispose();
  });

  it('holds a daily cap of N exactly under 20 concurrent signing requests (N pass, the rest 403)', async () => {
    const wallet = await newWallet();
    const N = 7;
    const policy = await call(a, 'POST', '/v1/wallets/policies', {
      name: 'Daily cap',
      wallet_id: wallet.id,
      rules: [{ kind: 'solana_daily_lamports', max_lamports: String(N * 1000) }],
    });
    expect(policy.status).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 ? b : a, 'POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
          sol_transaction: { transaction: transfer(wallet.public_address, 1000) },
        }),
      ),
    );
    const passed = results.filter((r) => r.status === 200);
    expect(passed).toHaveLength(N);
    expect(results.filter((r) => r.status === 403)).toHaveLength(20 - N);
    for (const r of results.filter((x) => x.status === 403)) {
      expect(r.body).toMatchObject({
        error_type: 'policy_violation',
        policy_rule: { policy_id: policy.body.policy_id, rule_index: 0, rule_kind: 'solana_daily_lamports' },
      });
    }
    for (const r of passed) {
      const tx = VersionedTransaction.deserialize(Buffer.from(r.body.signed_transaction, 'base64'));
      expect(
        nacl.sign.detached.verify(
          tx.message.serialize(),
          tx.signatures[0]!,
          base58.decode(wallet.public_address),
        ),
      ).toBe(true);
    }
    // The ledger holds exactly what was signed, and the trail every request.
    const [spent] = await h.sql<{ total: string }>(
      `select sum(amount)::text as total from "${h.schema}".wallet_spends where wallet_id = $1`,
      [wallet.id],
    );
    expect(spent?.total).toBe(String(N * 1000));
    const trail = await call(a, 'GET', `/v1/wallets/${wallet.id}/signatures?limit=100`);
    const decisions = trail.body.signatures.map((s: any) => s.decision);
    expect(decisions.filter((d: string) => d === 'allowed')).toHaveLength(N);
    expect(decisions.filter((d: string) => d === 'refused')).toHaveLength(20 - N);
    // Each entry is also an event, written with it (docs/events.md).
    const events = (await call(a, 'GET', '/v1/events?limit=1000')).body.events.filter(
      (e: any) => e.data.wallet_id === wallet.id && e.type.startsWith('signature.'),
    );
    expect(events.filter((e: any) => e.type === 'signature.made')).toHaveLength(N);
    expect(events.filter((e: any) => e.type === 'signature.refused')).toHaveLength(20 - N);
  });

  it('holds an EVM daily cap of N exactly under 20 concurrent eth_transaction requests', async () => {
    const user = await call(a, 'POST', '/v1/auth/users', {
      email: `${Math.random().toString(36).slice(2)}@example.com`,
    });
    const wallet = (
      await call(a, 'POST', '/v1/wallets/create', { user_id: user.body.user_id, wallet_type: 'ethereum' })
    ).body as { id: string; public_address: string };
    const N = 6;
    const policy = await call(a, 'POST', '/v1/wallets/policies', {
      name: 'EVM daily cap',
      wallet_id: wallet.id,
      rules: [{ kind: 'evm_daily_value', max_wei: String(N * 1000), chain_id: '1' }],
    });
    expect(policy.status).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 ? b : a, 'POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
          eth_transaction: {
            chain_id: '1',
            to: '0x3535353535353535353535353535353535353535',
            value: '1000',
            nonce: String(i),
            gas_limit: '21000',
            max_fee_per_gas: '30000000000',
          },
        }),
      ),
    );
    const passed = results.filter((r) => r.status === 200);
    expect(passed).toHaveLength(N);
    expect(results.filter((r) => r.status === 403)).toHaveLength(20 - N);
    for (const r of passed)
      expect(EthTransaction.from(r.body.signed_transaction).from).toBe(wallet.public_address);
  });

  it('holds an ERC-20 daily cap of N exactly under 20 concurrent transfers, and releases the native value of the refused', async () => {
    const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
    const erc20 = new Interface(['function transfer(address to, uint256 amount)']);
    const user = await call(a, 'POST', '/v1/auth/users', {
      email: `${Math.random().toString(36).slice(2)}@example.com`,
    });
    const wallet = (
      await call(a, 'POST', '/v1/wallets/create', { user_id: user.body.user_id, wallet_type: 'ethereum' })
    ).body as { id: string; public_address: string };
    const N = 6;
    const policy = await call(a, 'POST', '/v1/wallets/policies', {
      name: 'USDC daily cap',
      wallet_id: wallet.id,
      rules: [
        { kind: 'evm_daily_value', max_wei: '1000', chain_id: '1' },
        { kind: 'evm_token_daily_amount', chain_id: '1', token: USDC, max_amount: String(N * 1000) },
      ],
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    // Each moves 1 wei and 1000 units of USDC: both caps reserved, the native one released when
    // the token cap refuses.
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 ? b : a, 'POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
          eth_transaction: {
            chain_id: '1',
            to: USDC,
            value: '1',
            data: erc20.encodeFunctionData('transfer', ['0x1111111111111111111111111111111111111111', 1000n]),
            nonce: String(i),
            gas_limit: '60000',
            max_fee_per_gas: '30000000000',
          },
        }),
      ),
    );
    const passed = results.filter((r) => r.status === 200);
    expect(passed).toHaveLength(N);
    for (const r of results.filter((x) => x.status !== 200))
      expect(r.body).toMatchObject({
        error_type: 'policy_violation',
        policy_rule: { rule_index: 1, rule_kind: 'evm_token_daily_amount' },
      });
    for (const r of passed)
      expect(EthTransaction.from(r.body.signed_transaction).from).toBe(wallet.public_address);
    const ledger = await h.sql<{ asset: string; total: string }>(
      `select asset, sum(amount)::text as total from "${h.schema}".wallet_spends where wallet_id = $1 group by asset order by asset`,
      [wallet.id],
    );
    expect(ledger).toEqual([
      { asset: `erc20:1:${USDC.toLowerCase()}`, total: String(N * 1000) },
      { asset: 'evm:1', total: String(N) },
    ]);
  });

  it('keeps the audit trail newest first across pages, and out of reach of another App', async () => {
    const wallet = await newWallet();
    await call(a, 'POST', '/v1/wallets/policies', {
      name: 'Small',
      wallet_id: wallet.id,
      rules: [{ kind: 'solana_max_lamports', max_lamports: '5' }],
    });
    const amounts = [1, 9, 2, 8, 3];
    for (const lamports of amounts) {
      await call(a, 'POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
        sol_transaction: { transaction: transfer(wallet.public_address, lamports) },
      });
    }
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: any } = await call(
        a,
        'GET',
        `/v1/wallets/${wallet.id}/signatures?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.body.signatures);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen.map((s) => s.decision)).toEqual(
      amounts.map((x) => (x <= 5 ? 'allowed' : 'refused')).reverse(),
    );
    expect(seen.every((s) => /^[0-9a-f]{64}$/.test(s.payload_digest))).toBe(true);

    const other = (await a.apps.create({ name: 'Other' })).secret_key;
    const foreign = await call(a, 'GET', `/v1/wallets/${wallet.id}/signatures`, undefined, other);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error_type).toBe('wallet_not_found');
  });
});
