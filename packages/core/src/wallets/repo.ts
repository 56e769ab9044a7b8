import { WALLET_TYPES } from '../chains/types.js';
import type { EventRecord } from '../events/repo.js';

export { WALLET_TYPES };
export type WalletType = (typeof WALLET_TYPES)[number];

/** Where a wallet's key lives. */
export type WalletKeySource =
  /** Derived from the user's sealed seed by the chain's standard path. */
  | 'seed'
  /** Imported (a private key, or one derived from an imported mnemonic): sealed on the wallet row. */
  | 'imported'
  /** Only the address is known (proved by a signature at sign-in): read-only. */
  | 'external';

export interface WalletRecord {
  id: string;
  app_id: string;
  user_id: string;
  wallet_type: WalletType;
  /** `mainnet` or `testnet`: the address format differs for some chains (bitcoin). */
  network: 'mainnet' | 'testnet';
  public_address: string;
  key_source: WalletKeySource;
  /** The derivation path, for seed wallets and mnemonic imports. */
  derivation_path: string | null;
  /** The id of the key material: the seed's id, or the wallet's own for imported keys. */
  key_id: string | null;
  /** The wallet's private key, sealed by the KeyVault (seed wallets keep it too, so signing skips the seed stretch). */
  sealed_private_key: string | null;
  is_default: boolean;
  is_imported: boolean;
  is_read_only: boolean;
  verified: boolean;
  created_at: number;
  updated_at: number;
}

/** A user's BIP39 seed, the root of every wallet derived for them; only ever stored sealed. */
export interface SeedRecord {
  id: string;
  app_id: string;
  user_id: string;
  /** The mnemonic's entropy, sealed by the KeyVault with the App and user bound as context. */
  sealed_entropy: string;
  created_at: number;
}

export interface WalletListPage {
  wallets: WalletRecord[];
  /** The id to pass as `after` for the next page; null on the last page. */
  next_cursor: string | null;
}

export interface WalletRepo {
  /**
   * Atomically: inserts `wallet` as the user's default of its type unless one exists; returns
   * the default either way. Of concurrent callers in any number of processes, all get the same
   * row. `created: false` also when the App already has this address for this type (a default
   * is then not created, and `wallet` is that existing row). Throws `user_not_found` when the
   * App has no such user (on SQL the foreign key says so: no read first).
   */
  createDefaultIfAbsent(wallet: WalletRecord): Promise<{ wallet: WalletRecord; created: boolean }>;
  /**
   * Optional: `createDefaultIfAbsent`, writing `events` (each with its webhook deliveries, as
   * EventRepo.insert does) in the same atomic step if and only if the wallet was created. Without
   * it the two are written in one transaction.
   */
  createDefaultIfAbsentWithEvents?(
    wallet: WalletRecord,
    events: EventRecord[],
  ): Promise<{ wallet: WalletRecord; created: boolean }>;
  /**
   * The first step of a create, in one read: the user's default wallet of the type and their
   * seed, each null when absent (both null also when the App has no such user).
   */
  getDefaultWithSeed(
    appId: string,
    userId: string,
    walletType: WalletType,
  ): Promise<{ wallet: WalletRecord | null; seed: SeedRecord | null }>;
  /**
   * A new user's first wallet in one atomic step: stores `seed` as the user's seed and `wallet`
   * (derived from it: `key_id` is the seed's id) as their default of its type; returns the
   * wallet stored. Stores nothing and returns null when the user already has a seed or a default
   * of the type (the caller reads again: what it finds was committed by then). Of concurrent
   * callers in any number of processes, at most one stores. Throws `user_not_found` when the App
   * has no such user.
   */
  createDefaultWithSeed(seed: SeedRecord, wallet: WalletRecord): Promise<WalletRecord | null>;
  /**
   * Optional: `createDefaultWithSeed`, writing `events` (each with its webhook deliveries) in
   * the same atomic step if and only if the wallet was stored.
   */
  createDefaultWithSeedAndEvents?(
    seed: SeedRecord,
    wallet: WalletRecord,
    events: EventRecord[],
  ): Promise<WalletRecord | null>;
  /** Inserts a non-default wallet; `inserted: false` when the App already has this address for this type. */
  insert(wallet: WalletRecord): Promise<{ inserted: boolean }>;
  get(appId: string, walletId: string): Promise<WalletRecord | null>;
  getDefault(appId: string, userId: string, walletType: WalletType): Promise<WalletRecord | null>;
  findByAddress(appId: string, walletType: WalletType, address: string): Promise<WalletRecord | null>;
  /** Wallets ordered by id, after the cursor id, optionally of one user. */
  list(
    appId: string,
    query: { userId?: string | undefined; limit: number; after?: string | undefined },
  ): Promise<WalletListPage>;
}

export interface SeedRepo {
  /**
   * Atomically stores the user's seed unless they have one; returns the user's seed either way.
   * Throws `user_not_found` when the App has no such user.
   */
  insertIfAbsent(seed: SeedRecord): Promise<SeedRecord>;
  get(appId: string, userId: string): Promise<SeedRecord | null>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    wallets: WalletRepo;
    seeds: SeedRepo;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    wallet: true;
    seed: true;
  }
}

// The wallet a signing request names (shared/signing-request.ts) is this record.
declare module '../shared/signing-request.js' {
  interface SigningWallet extends WalletRecord {}
}
