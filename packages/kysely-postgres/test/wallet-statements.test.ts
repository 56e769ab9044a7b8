import { createLatchkey, type EventRecord, type Latchkey, LatchkeyError } from '@latchkey/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, targets } from './targets.js';

const SECRET = 'wallet-statements-test-secret-0123456789abcdef';
const message = { message: 'Sign in to example.com', encoding: 'utf8' as const };

/**
 * What the wallet rows' fewer statements must not lose (issue 18, point 6): a signature's audit
 * entry, event and deliveries written in one statement, concurrent ones grouped into one commit,
 * concurrent wallet reads grouped into one SELECT, and wallets/create trusting the foreign keys
 * for user_not_found.
 */
describe.each(targets)('wallet statements on $name', (target) => {
  let h: Harness;
  let latchkey: Latchkey;
  let appA: string;
  let appB: string;

  const count = async (sql: string, params: unknown[]) =>
    Number((await h.sql<{ n: string }>(sql, params))[0]!.n);

  const newWallet = async (appId: string, wallet_type: 'solana' | 'ethereum' = 'solana') => {
    const { user_id } = await latchkey.users.create(appId, {});
    return latchkey.wallets.create(appId, { user_id, wallet_type });
  };

  beforeAll(async () => {
    h = await target.open();
    latchkey = createLatchkey({ storage: h.storage, secret: SECRET });
    appA = (await latchkey.apps.create({ name: 'A' })).app_id;
    appB = (await latchkey.apps.create({ name: 'B' })).app_id;
  });
  afterAll(async () => {
    await latchkey?.close();
    await h?.dispose();
  });

  it('writes each of 20 concurrent signatures’ audit entry, event and webhook delivery', async () => {
    const wallet = await newWallet(appA);
    await h.storage.webhooks.insertEndpoint({
      id: 'whep_statements',
      app_id: appA,
      url: 'https://hooks.example.com/latchkey',
      event_types: ['signature.made'],
      sealed_secret: 'not used here',
      status: 'enabled',
      disabled_at: null,
      created_at: Math.floor(Date.now() / 1000),
      consecutive_failures: 0,
      paused_until: null,
    });
    const signed = await Promise.all(
      Array.from({ length: 20 }, () => latchkey.wallets.signMessage(appA, wallet.id, message)),
    );
    expect(signed).toHaveLength(20);
    const s = h.schema;
    expect(
      await count(`select count(*) as n from "${s}".wallet_signatures where wallet_id = $1`, [wallet.id]),
    ).toBe(20);
    const events = await h.sql<{ id: string }>(
      `select id from "${s}".events where type = 'signature.made' and data->>'wallet_id' = $1`,
      [wallet.id],
    );
    expect(events).toHaveLength(20);
    expect(
      await count(
        `select count(*) as n from "${s}".webhook_deliveries where endpoint_id = 'whep_statements' and event_id = any($1::text[])`,
        [events.map((e) => e.id)],
      ),
    ).toBe(20);
    // Each event names its own audit entry.
    expect(
      await count(
        `select count(*) as n from "${s}".events e join "${s}".wallet_signatures w on w.id = e.data->>'signature_id' where e.data->>'wallet_id' = $1`,
        [wallet.id],
      ),
    ).toBe(20);
  });

  it('fails only the caller whose entry cannot be written when entries are grouped', async () => {
    const wallet = await newWallet(appA);
    const now = Math.floor(Date.now() / 1000);
    const entry = (id: string, wallet_id: string) => ({
      id,
      app_id: appA,
      wallet_id,
      method: 'sign_message' as const,
      chain: 'solana' as const,
      payload_digest: 'ab'.repeat(32),
      decision: 'allowed' as const,
      policy_id: null,
      rule_index: null,
      rule_kind: null,
      error_type: null,
      key_kind: 'secret' as const,
      created_at: now,
    });
    const event = (id: string, signature_id: string): EventRecord => ({
      id,
      app_id: appA,
      type: 'signature.made',
      data: { signature_id },
      created_at: now,
    });
    const insert = h.storage.walletSignatures.insertWithEvents!;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        insert(entry(`sig_group_${i}`, i === 5 ? 'wallet_missing' : wallet.id), [
          event(`evt_group_${i}`, `sig_group_${i}`),
        ]),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual([
      ...Array(5).fill('fulfilled'),
      'rejected',
      ...Array(2).fill('fulfilled'),
    ]);
    const s = h.schema;
    expect(
      await count(`select count(*) as n from "${s}".wallet_signatures where id like 'sig_group_%'`, []),
    ).toBe(7);
    // The refused entry's event is not written either.
    expect(await count(`select count(*) as n from "${s}".events where id like 'evt_group_%'`, [])).toBe(7);
    expect(await count(`select count(*) as n from "${s}".events where id = 'evt_group_5'`, [])).toBe(0);
  });

  it('gives a grouped wallet read only the App’s own wallet', async () => {
    const wallet = await newWallet(appA);
    const reads = await Promise.all([
      h.storage.wallets.get(appA, wallet.id),
      h.storage.wallets.get(appB, wallet.id),
      h.storage.wallets.get(appA, wallet.id),
      h.storage.wallets.get(appB, wallet.id),
      h.storage.wallets.get(appA, 'wallet_missing'),
    ]);
    expect(reads.map((w) => w?.id ?? null)).toEqual([wallet.id, null, wallet.id, null, null]);
    await expect(latchkey.wallets.signMessage(appB, wallet.id, message)).rejects.toMatchObject({
      errorType: 'wallet_not_found',
    });
  });

  it('stores one seed and one wallet per type of 20 concurrent creates for a new user', async () => {
    const { user_id } = await latchkey.users.create(appA, {});
    const types = ['ethereum', 'solana'] as const;
    const made = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        latchkey.wallets.create(appA, { user_id, wallet_type: types[i % 2]! }),
      ),
    );
    for (const type of types)
      expect(new Set(made.filter((w) => w.wallet_type === type).map((w) => w.id)).size).toBe(1);
    const s = h.schema;
    const seeds = await h.sql<{ id: string }>(`select id from "${s}".seeds where user_id = $1`, [user_id]);
    expect(seeds).toHaveLength(1);
    const wallets = await h.sql<{ key_id: string }>(`select key_id from "${s}".wallets where user_id = $1`, [
      user_id,
    ]);
    // Both derived from the one seed there is.
    expect(wallets.map((w) => w.key_id)).toEqual([seeds[0]!.id, seeds[0]!.id]);
    expect(
      await count(
        `select count(*) as n from "${s}".events where type = 'wallet.created' and data->>'user_id' = $1`,
        [user_id],
      ),
    ).toBe(2);
  });

  it('says user_not_found on create for an unknown user or another App’s, and writes nothing', async () => {
    const { user_id: userOfB } = await latchkey.users.create(appB, {});
    for (const user_id of ['user_missing', userOfB]) {
      const err = await latchkey.wallets.create(appA, { user_id, wallet_type: 'ethereum' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(LatchkeyError);
      expect((err as LatchkeyError).errorType).toBe('user_not_found');
    }
    const s = h.schema;
    expect(
      await count(`select count(*) as n from "${s}".seeds where app_id = $1 and user_id = $2`, [
        appA,
        userOfB,
      ]),
    ).toBe(0);
    expect(await count(`select count(*) as n from "${s}".wallets where user_id = $1`, [userOfB])).toBe(0);
    // The wallet insert's own foreign key answers too (a user deleted after their seed was read).
    const now = Math.floor(Date.now() / 1000);
    await expect(
      h.storage.wallets.createDefaultIfAbsent({
        id: 'wallet_orphan',
        app_id: appA,
        user_id: userOfB,
        wallet_type: 'solana',
        network: 'mainnet',
        public_address: 'orphan-address',
        key_source: 'seed',
        derivation_path: null,
        key_id: null,
        sealed_private_key: null,
        is_default: true,
        is_imported: false,
        is_read_only: false,
        verified: true,
        created_at: now,
        updated_at: now,
      }),
    ).rejects.toMatchObject({ errorType: 'user_not_found' });
  });
});
