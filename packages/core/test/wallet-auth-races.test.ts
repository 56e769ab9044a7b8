import { randomBytes } from 'node:crypto';
import { kyselyStorage, pgliteStorage } from '@latchkey/kysely-postgres';
import { type HDNodeWallet, Wallet } from 'ethers';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey, type Latchkey, type Storage } from '../src/index.js';
import { TEST_SECRET } from './helpers.js';

const DATABASE_URL = process.env.DATABASE_URL;

interface Backend {
  name: string;
  open(): Promise<{
    storage: Storage;
    dispose(): Promise<void>;
    countUsers?(appId: string): Promise<number>;
  }>;
}

const backends: Backend[] = [
  {
    name: 'pglite',
    async open() {
      const storage = await pgliteStorage(undefined, { migrate: true });
      return { storage, dispose: () => storage.close() };
    },
  },
];
if (DATABASE_URL) {
  backends.push({
    name: 'postgres',
    async open() {
      // A pool of 10: the verifies run truly in parallel, only the storage keeps them apart.
      const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
      pool.on('error', () => {});
      const schema = `latchkey_wallet_auth_${randomBytes(6).toString('hex')}`;
      const storage = await kyselyStorage({ pool, schema, migrate: true });
      return {
        storage,
        countUsers: async (appId) =>
          (await pool.query(`select count(*)::int as n from "${schema}".users where app_id = $1`, [appId]))
            .rows[0].n,
        async dispose() {
          await storage.close();
          await pool.query(`drop schema if exists "${schema}" cascade`);
          await pool.end();
        },
      };
    },
  });
}

const hexToBase64 = (hex: string) => Buffer.from(hex.slice(2), 'hex').toString('base64');

describe.each(backends)('wallet sign-in races on $name', (backend) => {
  let latchkey: Latchkey;
  let appId: string;
  let dispose: () => Promise<void>;
  let countUsers: ((appId: string) => Promise<number>) | undefined;

  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    countUsers = opened.countUsers;
    latchkey = createLatchkey({ storage: opened.storage, secret: TEST_SECRET });
    appId = (await latchkey.apps.create({ name: 'Races' })).app_id;
  });
  afterAll(async () => {
    await dispose?.();
  });

  const signedChallenges = async (wallet: HDNodeWallet, count: number) =>
    Promise.all(
      Array.from({ length: count }, async () => {
        const c = await latchkey.walletAuth.challenge(appId, {
          wallet_type: 'ethereum',
          public_address: wallet.address,
        });
        return {
          wallet_type: 'ethereum' as const,
          public_address: wallet.address,
          nonce: c.nonce,
          signature: hexToBase64(await wallet.signMessage(c.challenge)),
        };
      }),
    );

  it('10 concurrent verifies of 10 challenges for one new address: one user, one wallet, all signed in', async () => {
    const wallet = Wallet.createRandom();
    const bodies = await signedChallenges(wallet, 10);
    const results = await Promise.all(bodies.map((b) => latchkey.walletAuth.verify(appId, b)));
    expect(new Set(results.map((r) => r.user_id)).size).toBe(1);
    expect(new Set(results.map((r) => r.wallet_id)).size).toBe(1);
    expect(results.filter((r) => r.user_created)).toHaveLength(1);
    const { wallets } = await latchkey.wallets.list(appId, { user_id: results[0]!.user_id });
    expect(wallets.map((w) => w.public_address)).toEqual([wallet.address]);
    // Where SQL can look: the losers' users were rolled back with their failed wallet inserts.
    if (countUsers) expect(await countUsers(appId)).toBe(1);
  });

  it('10 concurrent verifies of one signed challenge: exactly one succeeds, the rest hear it was used', async () => {
    const wallet = Wallet.createRandom();
    const [body] = await signedChallenges(wallet, 1);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => latchkey.walletAuth.verify(appId, body!)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const reasons = results.flatMap((r) =>
      r.status === 'rejected' ? [(r.reason as { errorType: string }).errorType] : [],
    );
    expect(reasons).toEqual(Array(9).fill('wallet_challenge_used'));
  });
});
