import { createCipheriv, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import express, { type Router } from 'express';
import pg from 'pg';
import type { Target } from './measure.js';
import { newEthereumKey } from './signing-ceilings.js';

export const CREATE_BOUND_ROW =
  'bound: bare Express route + wallets/create ethereum cryptography (new seed) + seed and wallet sealed, inserted by one durable statement';

/**
 * The create ceiling plus what a custodial create for a new user cannot skip either: the seed's
 * entropy and the wallet's key sealed (AES-256-GCM envelopes in the vault's `lkv1` format, on
 * node:crypto, as Latchkey's vault seals them), and the seed and the wallet stored by one
 * statement that has committed before the answer. The tables are the bound's own, with
 * Latchkey's `seeds` and `wallets` columns, keys and indexes (no foreign keys, no event); the
 * statement is Latchkey's (kysely-postgres `insertSeedAndWallet`) without its events: the seed
 * only if the user has none and no default wallet of the type, the wallet only if the seed went
 * in, rows as JSON. Latchkey does not group creates (each is its own statement on its pg pool),
 * so neither does the bound: one prepared statement per request on a pool of pg's default size,
 * the example server's. Each request is a new user (no users table: no foreign key to check).
 * So a Latchkey create ÷ this bound says what it adds beyond the cryptography and the one write.
 */
export async function createBound(
  databaseUrl: string,
  /** The vault's master key (32 bytes): a test opens the sealed rows with Latchkey's vault. */
  masterKey: Uint8Array = randomBytes(32),
): Promise<{ router: Router; tables: { seeds: string; wallets: string }; close(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  // Tables per process: two runs on one database never share them; dropped when the server stops.
  const suffix = randomBytes(4).toString('hex');
  const seeds = `bench_bound_seeds_${suffix}`;
  const wallets = `bench_bound_wallets_${suffix}`;
  await pool.query(`create table ${seeds} (
    id text primary key, app_id text not null, user_id text not null, sealed_entropy text not null,
    created_at bigint not null, unique (app_id, user_id))`);
  await pool.query(`create table ${wallets} (
    id text collate "C" primary key, app_id text not null, user_id text not null,
    wallet_type text not null, network text not null, public_address text not null,
    key_source text not null, derivation_path text, key_id text, sealed_private_key text,
    is_default boolean not null, is_imported boolean not null, is_read_only boolean not null,
    verified boolean not null, created_at bigint not null, updated_at bigint not null,
    unique (app_id, wallet_type, public_address))`);
  await pool.query(
    `create unique index on ${wallets} (app_id, user_id, wallet_type) where is_default = true`,
  );
  await pool.query(`create index on ${wallets} (app_id, id)`);
  await pool.query(`create index on ${wallets} (app_id, user_id, id)`);
  const insert = {
    name: `insert_${wallets}`,
    text: `with new_seed as (
        insert into ${seeds} (id, app_id, user_id, sealed_entropy, created_at)
        select s.id, s.app_id, s.user_id, s.sealed_entropy, s.created_at
        from jsonb_to_record($4::jsonb) as s (id text, app_id text, user_id text, sealed_entropy text, created_at bigint)
        where not exists (select 1 from ${wallets} where app_id = $1 and user_id = $2 and wallet_type = $3 and is_default = true)
        on conflict (app_id, user_id) do nothing
        returning id)
      insert into ${wallets} (id, app_id, user_id, wallet_type, network, public_address, key_source,
        derivation_path, key_id, sealed_private_key, is_default, is_imported, is_read_only, verified,
        created_at, updated_at)
      select v.id, v.app_id, v.user_id, v.wallet_type, v.network, v.public_address, v.key_source,
        v.derivation_path, v.key_id, v.sealed_private_key, v.is_default, v.is_imported, v.is_read_only,
        v.verified, v.created_at, v.updated_at
      from jsonb_to_record($5::jsonb) as v (id text, app_id text, user_id text, wallet_type text,
        network text, public_address text, key_source text, derivation_path text, key_id text,
        sealed_private_key text, is_default boolean, is_imported boolean, is_read_only boolean,
        verified boolean, created_at bigint, updated_at bigint)
      join new_seed on new_seed.id = v.key_id
      on conflict do nothing
      returning id, public_address`,
  };
  const master = createSecretKey(masterKey);

  const router = express.Router();
  router.use(express.json());
  router.post('/create/ethereum', async (_req, res, next) => {
    try {
      const { entropy, privateKey, address } = await newEthereumKey();
      const appId = 'app_bench';
      const userId = `user_${randomBytes(13).toString('hex')}`;
      const walletId = `wallet_${randomBytes(13).toString('hex')}`;
      const seedId = `seed_${randomBytes(13).toString('hex')}`;
      const now = Math.floor(Date.now() / 1000);
      const sealedEntropy = seal(master, entropy, `latchkey/seed/${appId}/${userId}`);
      const key = Buffer.from(`0x${privateKey.toString('hex')}`);
      const sealedKey = seal(master, key, `latchkey/wallet-key/${appId}/${walletId}`);
      entropy.fill(0);
      privateKey.fill(0);
      key.fill(0);
      const { rows } = await pool.query({
        ...insert,
        values: [
          appId,
          userId,
          'ethereum',
          JSON.stringify({
            id: seedId,
            app_id: appId,
            user_id: userId,
            sealed_entropy: sealedEntropy,
            created_at: now,
          }),
          JSON.stringify({
            id: walletId,
            app_id: appId,
            user_id: userId,
            wallet_type: 'ethereum',
            network: 'mainnet',
            public_address: address,
            key_source: 'seed',
            derivation_path: "m/44'/60'/0'/0/0",
            key_id: seedId,
            sealed_private_key: sealedKey,
            is_default: true,
            is_imported: false,
            is_read_only: false,
            verified: true,
            created_at: now,
            updated_at: now,
          }),
        ],
      });
      if (rows.length !== 1) throw new Error('the bound stored no wallet');
      res.json({ wallet_id: walletId, user_id: userId, address });
    } catch (err) {
      next(err);
    }
  });
  return {
    router,
    tables: { seeds, wallets },
    async close() {
      await pool.query(`drop table if exists ${wallets}, ${seeds}`);
      await pool.end();
    },
  };
}

/**
 * An `lkv1` blob as Latchkey's vault seals it (packages/core vault/sealed-format.ts): a fresh
 * data key encrypts the plaintext and is wrapped by the master key, both AES-256-GCM with the
 * header and context as additional data, every part unpadded base64url.
 */
function seal(master: KeyObject, plaintext: Uint8Array, context: string): string {
  const aad = Buffer.from(`lkv1.1.${context}`);
  const gcm = (key: KeyObject | Buffer, iv: Buffer, data: Uint8Array) => {
    const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad);
    return Buffer.concat([cipher.update(data), cipher.final(), cipher.getAuthTag()]);
  };
  const dataKey = randomBytes(32);
  const wrapIv = randomBytes(12);
  const iv = randomBytes(12);
  try {
    const parts = [wrapIv, gcm(master, wrapIv, dataKey), iv, gcm(dataKey, iv, plaintext)];
    return ['lkv1', '1', ...parts.map((p) => p.toString('base64url'))].join('.');
  } finally {
    dataKey.fill(0);
  }
}

/** The bound row beside the create ceiling row. */
export function createBoundTarget(base: string): Target {
  return { name: CREATE_BOUND_ROW, url: `${base}/create/ethereum`, method: 'POST', body: {} };
}
