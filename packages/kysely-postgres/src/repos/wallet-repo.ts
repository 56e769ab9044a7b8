import {
  type EventRecord,
  LatchkeyError,
  type SeedRecord,
  type SeedRepo,
  type WalletKeySource,
  type WalletRecord,
  type WalletRepo,
  type WalletType,
} from '@latchkey/core';
import type { Selectable } from 'kysely';
import type { LatchkeyDb, SeedsTable, WalletsTable } from '../database.js';
import { defineStatement, type Statements } from '../prepared-statements.js';
import {
  defaultWalletAndSeed,
  insertSeedAndWallet,
  WALLET_COLUMNS,
  walletById,
  walletsByIds,
} from '../prepared-wallet-statements.js';
import { batched } from './batched.js';
import { fromJson, toJson, toSeconds } from './columns.js';
import { eventsParam, writeWithEvents } from './event-repo.js';

/** Whether `err` is Postgres refusing a row for the foreign key `constraint` (SQLSTATE 23503). */
export function isForeignKeyViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23503' && e.constraint === constraint;
}

export const toWallet = (row: Selectable<WalletsTable>): WalletRecord => ({
  id: row.id,
  app_id: row.app_id,
  user_id: row.user_id,
  wallet_type: row.wallet_type as WalletType,
  network: row.network as WalletRecord['network'],
  public_address: row.public_address,
  key_source: row.key_source as WalletKeySource,
  derivation_path: row.derivation_path,
  key_id: row.key_id,
  sealed_private_key: row.sealed_private_key,
  is_default: row.is_default,
  is_imported: row.is_imported,
  is_read_only: row.is_read_only,
  verified: row.verified,
  created_at: toSeconds(row.created_at),
  updated_at: toSeconds(row.updated_at),
});

const walletRow = (w: WalletRecord) => ({
  id: w.id,
  app_id: w.app_id,
  user_id: w.user_id,
  wallet_type: w.wallet_type,
  network: w.network,
  public_address: w.public_address,
  key_source: w.key_source,
  derivation_path: w.derivation_path,
  key_id: w.key_id,
  sealed_private_key: w.sealed_private_key,
  is_default: w.is_default,
  is_imported: w.is_imported,
  is_read_only: w.is_read_only,
  verified: w.verified,
  created_at: w.created_at,
  updated_at: w.updated_at,
});

/** The wallet at an address: read by every wallet sign-in, so compiled once (prepared-statements.ts). */
export const byAddress = defineStatement((db, [appId, walletType, address]: [string, WalletType, string]) =>
  db
    .selectFrom('wallets')
    .selectAll()
    .where('app_id', '=', appId)
    .where('wallet_type', '=', walletType)
    .where('public_address', '=', address),
);

/**
 * A page of the App's wallets, or of one user's, by id after the cursor: prepared, one text for
 * each of the four shapes (planning the unnamed statement cost Postgres more than running it).
 * Named columns, not `*`: the result keeps its shape when a migration adds one while it runs.
 */
export const walletPage = defineStatement(
  (
    db,
    [appId, userId, after, limit]: [string, string | undefined, string | undefined, number],
    shape: { user: boolean; after: boolean },
  ) => {
    let query = db.selectFrom('wallets').select(WALLET_COLUMNS).where('app_id', '=', appId);
    if (shape.user) query = query.where('user_id', '=', userId!);
    if (shape.after) query = query.where('id', '>', after!);
    return query.orderBy('id').limit(limit);
  },
  (shape) => `${shape.user ? 'user' : 'app'}${shape.after ? ', after' : ''}`,
);

export function kyselyWalletRepo(db: LatchkeyDb, statements: Statements): WalletRepo {
  const getDefault = async (appId: string, userId: string, walletType: WalletType) => {
    const row = await db
      .selectFrom('wallets')
      .selectAll()
      .where('app_id', '=', appId)
      .where('user_id', '=', userId)
      .where('wallet_type', '=', walletType)
      .where('is_default', '=', true)
      .executeTakeFirst();
    return row ? toWallet(row) : null;
  };

  const findByAddress = async (appId: string, walletType: WalletType, address: string) => {
    const [row] = await statements.run(byAddress, [appId, walletType, address]);
    return row ? toWallet(row) : null;
  };

  // The unique indexes (one default per user and type, one address per App and type) decide
  // the race in one INSERT (with the events, when there are any, in the same statement); a
  // loser reads what won. A row deleted between the two statements sends it round again. The
  // user's foreign key says user_not_found: the caller does not read the user first.
  const createDefault = async (wallet: WalletRecord, events: EventRecord[]) => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const insert = db
        .insertInto('wallets')
        .values(walletRow({ ...wallet, is_default: true }))
        .onConflict((oc) => oc.doNothing())
        .returningAll();
      let inserted: Selectable<WalletsTable> | undefined;
      try {
        [inserted] = await writeWithEvents(db, insert, events);
      } catch (err) {
        if (isForeignKeyViolation(err, 'wallets_user_fkey')) throw new LatchkeyError('user_not_found');
        throw err;
      }
      if (inserted) return { wallet: toWallet(inserted), created: true };
      const existing =
        (await getDefault(wallet.app_id, wallet.user_id, wallet.wallet_type)) ??
        (await findByAddress(wallet.app_id, wallet.wallet_type, wallet.public_address));
      if (existing) return { wallet: existing, created: false };
    }
    throw new LatchkeyError('internal_error', 'The default wallet kept changing; try again.');
  };

  // A new user's seed and wallet in one statement, the wallet's events with them when there are any.
  const createWithSeed = async (seed: SeedRecord, wallet: WalletRecord, events: EventRecord[]) => {
    let rows: Selectable<WalletsTable>[];
    try {
      rows = await statements.run(insertSeedAndWallet, [
        wallet.app_id,
        wallet.user_id,
        wallet.wallet_type,
        toJson(seed),
        toJson(walletRow({ ...wallet, is_default: true })),
        events.length > 0 ? eventsParam(events) : '[]',
      ]);
    } catch (err) {
      if (isForeignKeyViolation(err, 'seeds_user_fkey')) throw new LatchkeyError('user_not_found');
      throw err;
    }
    return rows[0] ? toWallet(rows[0]) : null;
  };

  // Every signature reads its wallet first: concurrent reads share one statement. Each caller
  // gets its row only if it belongs to the caller's App, as the single read's WHERE did.
  type Lookup = { appId: string; walletId: string };
  // One text for any group (prepared-wallet-statements.ts): the ids travel as one array.
  const getAll = async (lookups: Lookup[]) => {
    if (lookups.length === 1) {
      const [row] = await statements.run(walletById, [lookups[0]!.appId, lookups[0]!.walletId]);
      return [row ? toWallet(row) : null];
    }
    const rows = await statements.run(walletsByIds, [[...new Set(lookups.map((l) => l.walletId))]]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return lookups.map(({ appId, walletId }) => {
      const row = byId.get(walletId);
      return row && row.app_id === appId ? toWallet(row) : null;
    });
  };
  const get = db.isTransaction ? async (lookup: Lookup) => (await getAll([lookup]))[0]! : batched(getAll);

  return {
    getDefault,
    findByAddress,

    async getDefaultWithSeed(appId, userId, walletType) {
      const [row] = await statements.run(defaultWalletAndSeed, [appId, userId, walletType]);
      const wallet = fromJson(row?.wallet ?? null) as Selectable<WalletsTable> | null;
      const seed = fromJson(row?.seed ?? null) as Selectable<SeedsTable> | null;
      return { wallet: wallet && toWallet(wallet), seed: seed && toSeed(seed) };
    },

    createDefaultWithSeed: (seed, wallet) => createWithSeed(seed, wallet, []),
    createDefaultWithSeedAndEvents: createWithSeed,

    async createDefaultIfAbsent(wallet) {
      return createDefault(wallet, []);
    },

    async createDefaultIfAbsentWithEvents(wallet, events) {
      return createDefault(wallet, events);
    },

    async insert(wallet) {
      const row = await db
        .insertInto('wallets')
        .values(walletRow(wallet))
        .onConflict((oc) => oc.columns(['app_id', 'wallet_type', 'public_address']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return { inserted: row !== undefined };
    },

    get: (appId, walletId) => get({ appId, walletId }),

    async list(appId, { userId, limit, after }) {
      // One row past the page says whether another page follows.
      const rows = await statements.run(walletPage, [appId, userId, after, limit + 1], {
        user: userId !== undefined,
        after: after !== undefined,
      });
      const page = rows.slice(0, limit).map(toWallet);
      return { wallets: page, next_cursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
    },
  };
}

const toSeed = (row: Selectable<SeedsTable>): SeedRecord => ({
  id: row.id,
  app_id: row.app_id,
  user_id: row.user_id,
  sealed_entropy: row.sealed_entropy,
  created_at: toSeconds(row.created_at),
});

export function kyselySeedRepo(db: LatchkeyDb): SeedRepo {
  const get = async (appId: string, userId: string) => {
    const row = await db
      .selectFrom('seeds')
      .selectAll()
      .where('app_id', '=', appId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row ? toSeed(row) : null;
  };

  return {
    get,

    async insertIfAbsent(seed) {
      let inserted: Selectable<SeedsTable> | undefined;
      try {
        // One statement either way: the new row, or the one already there. A statement does not
        // see its own CTE's insert, so the second branch finds only a seed that was there before.
        inserted = await db
          .with('inserted', (w) =>
            w
              .insertInto('seeds')
              .values({
                id: seed.id,
                app_id: seed.app_id,
                user_id: seed.user_id,
                sealed_entropy: seed.sealed_entropy,
                created_at: seed.created_at,
              })
              .onConflict((oc) => oc.columns(['app_id', 'user_id']).doNothing())
              .returningAll(),
          )
          .selectFrom('inserted')
          .selectAll()
          .unionAll(
            db
              .selectFrom('seeds')
              .selectAll()
              .where('app_id', '=', seed.app_id)
              .where('user_id', '=', seed.user_id),
          )
          .executeTakeFirst();
      } catch (err) {
        // The caller does not read the user first: the foreign key says there is none.
        if (isForeignKeyViolation(err, 'seeds_user_fkey')) throw new LatchkeyError('user_not_found');
        throw err;
      }
      if (inserted) return toSeed(inserted);
      // A seed committed by a concurrent request after this statement began: seeds are never
      // deleted, so the row that won the conflict is there to read now.
      const existing = await get(seed.app_id, seed.user_id);
      if (!existing)
        throw new LatchkeyError('internal_error', 'The user’s seed vanished while being created.');
      return existing;
    },
  };
}
