import { createHash } from 'node:crypto';
import { memoryStorage } from '@latchkey/memory';
import { base58 } from '@scure/base';
import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  VersionedTransaction,
} from '@solana/web3.js';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { createLatchkey, localKeyVault } from '../src/index.js';
import { MAX_POLICIES_PER_APP, POLICY_CACHE_SECONDS } from '../src/wallet-policies/service.js';
import {
  expectErrorShape,
  manualClock,
  TEST_SECRET,
  type TestApp,
  testApp,
  testLatchkey,
} from './helpers.js';

const BLOCKHASH = base58.encode(new Uint8Array(32).fill(7));
const SYSTEM = SystemProgram.programId.toBase58();
const COMPUTE_BUDGET = ComputeBudgetProgram.programId.toBase58();

/** An unsigned transfer from the wallet, built and serialized by @solana/web3.js. */
function transfer(from: string, lamports: number, { computeBudget = false } = {}) {
  const payer = new PublicKey(from);
  const tx = new Transaction({ feePayer: payer, recentBlockhash: BLOCKHASH });
  if (computeBudget) tx.add(ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }));
  tx.add(SystemProgram.transfer({ fromPubkey: payer, toPubkey: Keypair.generate().publicKey, lamports }));
  return Buffer.from(tx.serialize({ requireAllSignatures: false, verifySignatures: false }));
}

async function setup(t?: TestApp) {
  const { latchkey, clock } = testLatchkey();
  t ??= await testApp(latchkey);
  const newWallet = async () => {
    const user = await t.call('POST', '/v1/auth/users', {
      email: `p${Math.random().toString(36).slice(2)}@example.com`,
    });
    const res = await t.call('POST', '/v1/wallets/create', {
      user_id: user.body.user_id,
      wallet_type: 'solana',
    });
    return res.body as { id: string; public_address: string };
  };
  const sign = (wallet: { id: string; public_address: string }, lamports: number, opts = {}) =>
    t.call('POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
      sol_transaction: { transaction: transfer(wallet.public_address, lamports, opts).toString('base64') },
    });
  const policy = async (body: unknown) => {
    // Ids order policies to the millisecond; the manual clock would otherwise stand still.
    clock.advance(0.001);
    const res = await t.call('POST', '/v1/wallets/policies', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { policy_id: string };
  };
  return { t, latchkey, clock, newWallet, sign, policy };
}

/** The signature in the response verifies with tweetnacl over the signed message. */
function expectSigned(
  res: { status: number; body: any },
  wallet: { public_address: string },
  encoding: 'base64' | 'base58' = 'base64',
) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const raw = res.body.signed_transaction as string;
  const tx = VersionedTransaction.deserialize(
    encoding === 'base64' ? Buffer.from(raw, 'base64') : base58.decode(raw),
  );
  expect(
    nacl.sign.detached.verify(
      tx.message.serialize(),
      tx.signatures[0]!,
      base58.decode(wallet.public_address),
    ),
  ).toBe(true);
}

function expectViolation(
  res: { status: number; body: any; headers: Headers },
  policy_id: string,
  rule_index: number,
  rule_kind: string,
) {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  const body = expectErrorShape(res);
  expect(body.error_type).toBe('policy_violation');
  expect(res.body.policy_rule).toEqual({ policy_id, rule_index, rule_kind });
  expect(body.error_message).toContain(policy_id);
}

describe('wallet policies over HTTP', () => {
  it('creates, reads, lists, updates and deletes a policy with the secret key only', async () => {
    const { t, newWallet, clock } = await setup();
    const wallet = await newWallet();
    const rules = [{ kind: 'solana_max_lamports', max_lamports: '5000' }];
    const created = await t.call('POST', '/v1/wallets/policies', { name: ' Cap ', rules });
    clock.advance(0.001);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ app_id: t.app_id, name: 'Cap', wallet_id: null, rules });
    expect(created.body.policy_id).toMatch(/^policy_/);
    const one = await t.call('POST', '/v1/wallets/policies', {
      name: 'One wallet',
      wallet_id: wallet.id,
      rules: [{ kind: 'allowed_methods', methods: ['sign_transaction'] }],
    });
    expect(one.body.wallet_id).toBe(wallet.id);

    expect((await t.call('GET', `/v1/wallets/policies/${created.body.policy_id}`)).body).toEqual(
      created.body,
    );
    const all = await t.call('GET', '/v1/wallets/policies');
    expect(all.body.policies.map((p: any) => p.policy_id)).toEqual([
      created.body.policy_id,
      one.body.policy_id,
    ]);
    const page = await t.call('GET', '/v1/wallets/policies?limit=1');
    expect(page.body.next_cursor).toBe(created.body.policy_id);
    const next = await t.call('GET', `/v1/wallets/policies?limit=1&cursor=${page.body.next_cursor}`);
    expect(next.body).toEqual({ policies: [one.body], next_cursor: null });
    const ofWallet = await t.call('GET', `/v1/wallets/policies?wallet_id=${wallet.id}`);
    expect(ofWallet.body.policies).toEqual([one.body]);

    const patched = await t.call('PATCH', `/v1/wallets/policies/${created.body.policy_id}`, {
      rules: [{ kind: 'solana_max_lamports', max_lamports: '9000' }],
    });
    expect(patched.body).toMatchObject({ name: 'Cap', rules: [{ max_lamports: '9000' }] });
    const del = await t.call('DELETE', `/v1/wallets/policies/${created.body.policy_id}`);
    expect(del.body).toEqual({ policy_id: created.body.policy_id, deleted: true });
    const gone = await t.call('GET', `/v1/wallets/policies/${created.body.policy_id}`);
    expect(expectErrorShape(gone).error_type).toBe('policy_not_found');
    expect((await t.call('DELETE', `/v1/wallets/policies/${created.body.policy_id}`)).status).toBe(404);

    const publicKey = await t.call('POST', '/v1/wallets/policies', { name: 'x', rules }, t.public_token);
    expect(expectErrorShape(publicKey).error_type).toBe('secret_key_required');
    expect((await t.call('GET', '/v1/wallets/policies', undefined, t.public_token)).status).toBe(403);
  });

  it(`keeps at most ${MAX_POLICIES_PER_APP} policies per App: the next is 409 policy_limit_reached until one is deleted`, async () => {
    expect(MAX_POLICIES_PER_APP).toBe(100); // the limit docs/wallet-policies.md promises
    const { t, policy, newWallet } = await setup();
    const wallet = await newWallet();
    const rules = [{ kind: 'allowed_chains', chains: ['solana'] }];
    const made: string[] = [];
    for (let i = 0; i < MAX_POLICIES_PER_APP; i++)
      made.push(
        (await policy({ name: `p${i}`, rules, ...(i % 2 ? { wallet_id: wallet.id } : {}) })).policy_id,
      );
    const refused = await t.call('POST', '/v1/wallets/policies', { name: 'one more', rules });
    expect(refused.status).toBe(409);
    expect(expectErrorShape(refused).error_type).toBe('policy_limit_reached');
    // Another App keeps its own count.
    const other = await setup();
    await other.policy({ name: 'theirs', rules });
    expect((await t.call('DELETE', `/v1/wallets/policies/${made[0]}`)).status).toBe(200);
    await policy({ name: 'in its place', rules });
  });

  it('refuses bad rules by field, and a wallet that is not the App’s', async () => {
    const { t } = await setup();
    const bad: Array<[unknown, string]> = [
      [{ name: 'x', rules: [] }, 'rules'],
      [{ name: 'x', rules: [{ kind: 'evm_to_allowlist', addresses: ['0x12'] }] }, 'rules.0.addresses.0'],
      [{ name: 'x', rules: [{ kind: 'no_such_rule' }] }, 'rules.0.kind'],
      [{ name: 'x', rules: [{ kind: 'solana_max_lamports', max_lamports: '-1' }] }, 'rules.0.max_lamports'],
      [{ name: 'x', rules: [{ kind: 'solana_max_lamports', max_lamports: 5 }] }, 'rules.0.max_lamports'],
      [{ name: 'x', rules: [{ kind: 'allowed_chains', chains: ['doge'] }] }, 'rules.0.chains.0'],
      [{ name: '', rules: [{ kind: 'allowed_chains', chains: ['XLM'] }] }, 'name'],
      [{ name: 'x', rules: [{ kind: 'allowed_chains', chains: ['XLM'], extra: true }] }, 'rules.0.extra'],
    ];
    for (const [body, field] of bad) {
      const res = await t.call('POST', '/v1/wallets/policies', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(expectErrorShape(res).error_field, JSON.stringify(body)).toBe(field);
    }
    const unknown = await t.call('POST', '/v1/wallets/policies', {
      name: 'x',
      wallet_id: 'wallet_unknown',
      rules: [{ kind: 'allowed_chains', chains: ['XLM'] }],
    });
    expect(expectErrorShape(unknown).error_type).toBe('wallet_not_found');
    expect((await t.call('GET', '/v1/wallets/policies?limit=0')).status).toBe(400);
  });

  it('allows what the rules allow and refuses, naming the rule, what they do not', async () => {
    const { t, sign, policy, newWallet } = await setup();
    const wallet = await newWallet();
    expectSigned(await sign(wallet, 1000), wallet);

    const p = await policy({
      name: 'Solana spending',
      rules: [
        { kind: 'allowed_chains', chains: ['solana', 'ethereum'] },
        { kind: 'allowed_methods', methods: ['sign_transaction'] },
        { kind: 'solana_program_allowlist', programs: [SYSTEM] },
        { kind: 'solana_max_lamports', max_lamports: '5000' },
      ],
    });
    expectSigned(await sign(wallet, 5000), wallet);
    expectViolation(await sign(wallet, 5001), p.policy_id, 3, 'solana_max_lamports');
    expectViolation(
      await sign(wallet, 10, { computeBudget: true }),
      p.policy_id,
      2,
      'solana_program_allowlist',
    );
    const patched = await t.call('PATCH', `/v1/wallets/policies/${p.policy_id}`, {
      rules: [{ kind: 'solana_program_allowlist', programs: [SYSTEM, COMPUTE_BUDGET] }],
    });
    expect(patched.status).toBe(200);
    expectSigned(await sign(wallet, 10, { computeBudget: true }), wallet);
  });

  it('refuses by method and by chain', async () => {
    const { sign, policy, newWallet } = await setup();
    const wallet = await newWallet();
    const chains = await policy({
      name: 'EVM only',
      rules: [{ kind: 'allowed_chains', chains: ['ethereum'] }],
    });
    expectViolation(await sign(wallet, 1), chains.policy_id, 0, 'allowed_chains');

    const other = await setup();
    const w2 = await other.newWallet();
    const methods = await other.policy({
      name: 'Messages only',
      rules: [{ kind: 'allowed_methods', methods: ['sign_message'] }],
    });
    expectViolation(await other.sign(w2, 1), methods.policy_id, 0, 'allowed_methods');
  });

  it('applies a policy on one wallet to that wallet only, and an App policy to all', async () => {
    const { t, sign, policy, newWallet } = await setup();
    const [a, b] = [await newWallet(), await newWallet()];
    const onA = await policy({
      name: 'A is small',
      wallet_id: a.id,
      rules: [{ kind: 'solana_max_lamports', max_lamports: '100' }],
    });
    expectViolation(await sign(a, 101), onA.policy_id, 0, 'solana_max_lamports');
    expectSigned(await sign(b, 101), b);

    const app = await policy({ name: 'All', rules: [{ kind: 'solana_max_lamports', max_lamports: '50' }] });
    // Both apply to A: policies are judged in creation order, the first refusal names its rule.
    expectViolation(await sign(a, 101), onA.policy_id, 0, 'solana_max_lamports');
    expectViolation(await sign(a, 60), app.policy_id, 0, 'solana_max_lamports');
    expectViolation(await sign(b, 60), app.policy_id, 0, 'solana_max_lamports');
    expectSigned(await sign(b, 50), b);

    await t.call('DELETE', `/v1/wallets/policies/${app.policy_id}`);
    expectSigned(await sign(b, 60), b);
  });

  it('holds a rolling 24-hour cap, refunds nothing it did not sign, and frees the cap after 24 hours', async () => {
    const { sign, policy, newWallet, clock } = await setup();
    const wallet = await newWallet();
    const p = await policy({
      name: 'Daily',
      rules: [{ kind: 'solana_daily_lamports', max_lamports: '1000' }],
    });
    expectSigned(await sign(wallet, 600), wallet);
    clock.advance(12 * 3600);
    expectViolation(await sign(wallet, 401), p.policy_id, 0, 'solana_daily_lamports');
    expectSigned(await sign(wallet, 400), wallet);
    expectViolation(await sign(wallet, 1), p.policy_id, 0, 'solana_daily_lamports');
    // A transaction moving nothing does not count against the cap.
    expectSigned(await sign(wallet, 0), wallet);
    // The first 600 leave the window 24 hours after they were signed.
    clock.advance(12 * 3600 + 1);
    expectSigned(await sign(wallet, 600), wallet);
    expectViolation(await sign(wallet, 1), p.policy_id, 0, 'solana_daily_lamports');
    // Larger than the cap itself: refused before the ledger is read.
    expectViolation(await sign(wallet, 1001), p.policy_id, 0, 'solana_daily_lamports');
  });

  it('holds a daily cap of N exactly under 20 concurrent requests', async () => {
    const { sign, policy, newWallet } = await setup();
    const wallet = await newWallet();
    await policy({ name: 'Daily', rules: [{ kind: 'solana_daily_lamports', max_lamports: '7000' }] });
    const results = await Promise.all(Array.from({ length: 20 }, () => sign(wallet, 1000)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(7);
    expect(results.filter((r) => r.status === 403)).toHaveLength(13);
  });

  it('records every request in the audit trail, newest first, with cursor pages', async () => {
    const { t, sign, policy, newWallet } = await setup();
    const wallet = await newWallet();
    const tx = transfer(wallet.public_address, 10);
    const ok = await t.call('POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
      sol_transaction: { transaction: base58.encode(tx), encoding: 'base58' },
    });
    expectSigned(ok, wallet, 'base58');
    const p = await policy({ name: 'Cap', rules: [{ kind: 'solana_max_lamports', max_lamports: '100' }] });
    expect((await sign(wallet, 101)).status).toBe(403);
    // Malformed: refused before it is a signing request, so not in the trail.
    const bad = await t.call('POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
      sol_transaction: { transaction: 'AAAA' },
    });
    expect(bad.status).toBe(400);

    const trail = await t.call('GET', `/v1/wallets/${wallet.id}/signatures`);
    expect(trail.status).toBe(200);
    const [refused, allowed] = trail.body.signatures;
    expect(trail.body.signatures).toHaveLength(2);
    expect(refused).toMatchObject({
      wallet_id: wallet.id,
      method: 'sign_transaction',
      chain: 'solana',
      decision: 'refused',
      policy_id: p.policy_id,
      rule_index: 0,
      rule_kind: 'solana_max_lamports',
      key_kind: 'secret',
      error_type: null,
    });
    expect(allowed).toMatchObject({
      decision: 'allowed',
      policy_id: null,
      rule_index: null,
      rule_kind: null,
    });
    // The digest is SHA-256 of the transaction bytes, whatever encoding carried them.
    expect(allowed.payload_digest).toBe(createHash('sha256').update(tx).digest('hex'));
    expect(typeof allowed.created_at).toBe('number');

    for (let i = 0; i < 3; i++) await sign(wallet, i);
    const first = await t.call('GET', `/v1/wallets/${wallet.id}/signatures?limit=2`);
    const second = await t.call(
      'GET',
      `/v1/wallets/${wallet.id}/signatures?limit=2&cursor=${first.body.next_cursor}`,
    );
    const third = await t.call(
      'GET',
      `/v1/wallets/${wallet.id}/signatures?limit=2&cursor=${second.body.next_cursor}`,
    );
    const ids = [...first.body.signatures, ...second.body.signatures, ...third.body.signatures].map(
      (s: any) => s.id,
    );
    expect(new Set(ids).size).toBe(5);
    expect(third.body.next_cursor).toBeNull();
    expect(ids.slice(3)).toEqual([refused.id, allowed.id]);
  });

  it("shows another App's key none of a wallet's trail, and lets it change none of its policies", async () => {
    const { t, sign, newWallet, policy, latchkey } = await setup();
    const wallet = await newWallet();
    await sign(wallet, 1);
    const p = await policy({ name: 'Mine', rules: [{ kind: 'solana_max_lamports', max_lamports: '1' }] });
    const other = await testApp(latchkey);
    const trail = await other.call('GET', `/v1/wallets/${wallet.id}/signatures`);
    expect(trail.status).toBe(404);
    expect(expectErrorShape(trail).error_type).toBe('wallet_not_found');
    for (const [method, body] of [['GET'], ['PATCH', { name: 'Theirs' }], ['DELETE']] as const) {
      const res = await other.call(method, `/v1/wallets/policies/${p.policy_id}`, body);
      expect(res.status, method).toBe(404);
    }
    expect((await other.call('GET', '/v1/wallets/policies')).body.policies).toEqual([]);
    const attach = await other.call('POST', '/v1/wallets/policies', {
      name: 'x',
      wallet_id: wallet.id,
      rules: [{ kind: 'allowed_chains', chains: ['XLM'] }],
    });
    expect(attach.status).toBe(404);
    // The owner still sees its policy and the trail in full.
    expect((await t.call('GET', `/v1/wallets/policies/${p.policy_id}`)).body.name).toBe('Mine');
    expect((await t.call('GET', `/v1/wallets/${wallet.id}/signatures`)).body.signatures).toHaveLength(1);
  });

  it('records a signature that failed after the policies allowed it, and gives its daily spend back', async () => {
    const storage = memoryStorage();
    const vault = (byte: number) =>
      localKeyVault({ keys: { 1: Buffer.alloc(32, byte).toString('base64url') }, current: 1 });
    const good = createLatchkey({ storage, secret: TEST_SECRET, keyVault: vault(1) });
    // The same data behind a vault that cannot open it: signing fails once the key is needed.
    const broken = createLatchkey({
      storage,
      secret: TEST_SECRET,
      keyVault: vault(2),
      onInternalError: () => {},
    });
    const { t, newWallet, policy } = await setup(await testApp(good));
    const wallet = await newWallet();
    await policy({ name: 'Daily', rules: [{ kind: 'solana_daily_lamports', max_lamports: '1000' }] });
    const viaBroken = await broken.fetch(
      new Request(`http://latchkey.test/v1/wallets/${wallet.id}/sign_transaction`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.secret_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          sol_transaction: { transaction: transfer(wallet.public_address, 600).toString('base64') },
        }),
      }),
    );
    expect(viaBroken.status).toBe(500);
    const [failed] = (await t.call('GET', `/v1/wallets/${wallet.id}/signatures`)).body.signatures;
    expect(failed).toMatchObject({ decision: 'failed', error_type: 'vault_open_failed', policy_id: null });
    // The 600 were not signed, so the whole cap is still there.
    const sign = (lamports: number) =>
      t.call('POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
        sol_transaction: { transaction: transfer(wallet.public_address, lamports).toString('base64') },
      });
    expectSigned(await sign(1000), wallet);
    expect((await sign(1)).status).toBe(403);
  });

  it('applies a policy change at once in the process that made it, and within the cache time in another', async () => {
    const storage = memoryStorage();
    const clock = manualClock();
    const here = await setup(await testApp(createLatchkey({ storage, secret: TEST_SECRET, clock })));
    const elsewhere = createLatchkey({ storage, secret: TEST_SECRET, clock });
    const wallet = await here.newWallet();
    const signElsewhere = (lamports: number) =>
      elsewhere.wallets.signTransaction(here.t.app_id, wallet.id, {
        sol_transaction: {
          transaction: transfer(wallet.public_address, lamports).toString('base64'),
          encoding: 'base64',
        },
      });
    await signElsewhere(11); // the other process now holds the App's (empty) policies
    clock.advance(0.001);
    const cap = await here.t.latchkey.walletPolicies.create(here.t.app_id, {
      name: 'Cap',
      rules: [{ kind: 'solana_max_lamports', max_lamports: '10' }],
    });
    expectViolation(await here.sign(wallet, 11), cap.policy_id, 0, 'solana_max_lamports');
    await expect(signElsewhere(11)).resolves.toMatchObject({ wallet_id: wallet.id });
    clock.advance(POLICY_CACHE_SECONDS);
    await expect(signElsewhere(11)).rejects.toMatchObject({ errorType: 'policy_violation' });
  });

  it('does not cache a policy list read while this process changed the policies', async () => {
    const base = memoryStorage();
    // Holds one read of the policies until released, to change them while it is in flight.
    let hold: { reached: () => void; release: Promise<void> } | undefined;
    const storage = {
      ...base,
      walletPolicies: {
        ...base.walletPolicies,
        async listForWallet(appId: string, walletId: string) {
          const read = await base.walletPolicies.listForWallet(appId, walletId);
          const h = hold;
          hold = undefined;
          if (h) {
            h.reached();
            await h.release;
          }
          return read;
        },
      },
    };
    const clock = manualClock();
    const here = await setup(await testApp(createLatchkey({ storage, secret: TEST_SECRET, clock })));
    const wallet = await here.newWallet();
    let release!: () => void;
    const reached = new Promise<void>((reachedNow) => {
      hold = { reached: reachedNow, release: new Promise((r) => (release = r)) };
    });
    const inFlight = here.sign(wallet, 11);
    await reached;
    clock.advance(0.001);
    const cap = await here.t.latchkey.walletPolicies.create(here.t.app_id, {
      name: 'Cap',
      rules: [{ kind: 'solana_max_lamports', max_lamports: '10' }],
    });
    release();
    // Judged on what it read before the policy existed; the next one reads again.
    expectSigned(await inFlight, wallet);
    expectViolation(await here.sign(wallet, 11), cap.policy_id, 0, 'solana_max_lamports');
  });

  it('opens no key for a refused request', async () => {
    const inner = localKeyVault({ keys: { 1: Buffer.alloc(32, 3).toString('base64url') }, current: 1 });
    const opened: string[] = [];
    const keyVault = {
      seal: inner.seal,
      open: (sealed: string, context: string) => {
        opened.push(context);
        return inner.open(sealed, context);
      },
    };
    const { sign, newWallet, policy } = await setup(
      await testApp(createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET, keyVault })),
    );
    const wallet = await newWallet();
    await policy({ name: 'Cap', rules: [{ kind: 'solana_max_lamports', max_lamports: '10' }] });
    opened.length = 0;
    expect((await sign(wallet, 11)).status).toBe(403);
    expect(opened).toEqual([]);
    expectSigned(await sign(wallet, 10), wallet);
    expect(opened).toEqual([expect.stringContaining(wallet.id)]);
  });
});
