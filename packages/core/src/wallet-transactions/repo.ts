import type { Storage } from '../ports/storage.js';

/**
 * Where a sent transaction stands. `preparing`: its nonce is taken, not yet signed. `signed`:
 * signed and stored, the node has not yet acknowledged it. `submitted`: the node holds it.
 * `confirmed` / `failed`: mined, the receipt's status 1 / 0. `replaced`: a speed-up or cancel
 * with the same nonce was submitted in its place. `dropped`: another transaction took its nonce.
 * `abandoned`: never broadcast (refused, or the node refused it); its nonce went back to the wallet.
 */
export const WALLET_TRANSACTION_STATUSES = [
  'preparing',
  'signed',
  'submitted',
  'confirmed',
  'failed',
  'replaced',
  'dropped',
  'abandoned',
] as const;
export type WalletTransactionStatus = (typeof WALLET_TRANSACTION_STATUSES)[number];

/** What made the transaction: a send, or a replacement of an earlier one at the same nonce. */
export type WalletTransactionKind = 'send' | 'speed_up' | 'cancel';

/**
 * One transaction a wallet sent. EVM: amounts in wei as decimal strings. Solana: no nonce, gas
 * or fee caps (null), `value` the lamports the System program moves from the wallet, `to` the
 * recipient of a `sol_transfer` (null for a `sol_transaction`).
 */
export interface WalletTransactionRecord {
  id: string;
  app_id: string;
  wallet_id: string;
  /** The EVM chain id, decimal; or a Solana cluster's CAIP-2 id (`solana:<genesis hash prefix>`). */
  chain_id: string;
  /** EVM only. */
  nonce: number | null;
  kind: WalletTransactionKind;
  status: WalletTransactionStatus;
  to: string | null;
  value: string;
  data: string | null;
  gas_limit: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  /** Known once signed: the hash (EVM), the fee payer's signature in base58 (Solana). */
  transaction_hash: string | null;
  /** The signed raw transaction, kept until it is settled so it can be broadcast again after a fault. */
  raw_transaction: string | null;
  /** The transaction this one replaces (speed_up, cancel). */
  replaces: string | null;
  replaced_by: string | null;
  idempotency_key: string | null;
  block_number: string | null;
  gas_used: string | null;
  effective_gas_price: string | null;
  /** gas_used × effective_gas_price, wei. */
  fee: string | null;
  /** Why it failed or was abandoned, in words (never a secret). */
  error: string | null;
  created_at: number;
  updated_at: number;
}

/** The fields a state change may set. */
export type WalletTransactionPatch = Partial<
  Pick<
    WalletTransactionRecord,
    | 'status'
    | 'transaction_hash'
    | 'raw_transaction'
    | 'replaced_by'
    | 'block_number'
    | 'gas_used'
    | 'effective_gas_price'
    | 'fee'
    | 'error'
    | 'updated_at'
  >
>;

/**
 * The audit entry of a signature (wallet-policies' WalletSignatureRecord, named through the
 * Storage port so that this folder does not import the policies').
 */
export type SignatureEntry = Parameters<Storage['walletSignatures']['insert']>[0];
/** An event as the storage writes it (events' EventRecord, named through the Storage port). */
type StoredEvent = Parameters<Storage['events']['insert']>[0];

export interface WalletTransactionPage {
  transactions: WalletTransactionRecord[];
  /** The id to pass as `before` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

export interface WalletTransactionRepo {
  /**
   * Atomically, across processes: takes the wallet's next nonce on the transaction's chain and
   * inserts the transaction with it. The nonce is the lowest one given back (`abandon`) that is at
   * least `floor`, else the larger of the sequence's next and `floor` (the chain's pending count),
   * after which the sequence moves past it. When the wallet already has a transaction with this
   * `idempotency_key`, nothing is taken or written and that transaction is returned
   * (`created: false`).
   */
  insertWithNextNonce(
    transaction: Omit<WalletTransactionRecord, 'nonce'>,
    floor: number,
  ): Promise<{ transaction: WalletTransactionRecord; created: boolean }>;
  /** Inserts a replacement, which carries the nonce of the transaction it replaces. */
  insert(transaction: WalletTransactionRecord): Promise<void>;
  /**
   * Atomically: inserts a transaction that takes no nonce (Solana) unless the wallet already has
   * one with its `idempotency_key`, which is then returned (`created: false`).
   */
  insertOnce(
    transaction: WalletTransactionRecord,
  ): Promise<{ transaction: WalletTransactionRecord; created: boolean }>;
  /**
   * Atomically: applies `patch` if the transaction's status is one of `from`; returns the updated
   * transaction, or null when it was not (another caller moved it first).
   */
  transition(
    appId: string,
    id: string,
    from: readonly WalletTransactionStatus[],
    patch: WalletTransactionPatch,
  ): Promise<WalletTransactionRecord | null>;
  /**
   * Optional: `transition` of `t` (the transaction as the caller holds it, as stored), with what
   * the change implies written in the same atomic step, so a send's step costs one statement:
   * `signature`, the audit entry of the signature the patch stores (WalletSignatureRepo.insert
   * writes it otherwise), inserted whether or not the transition happens (the signature was
   * made); null for none. Without it the caller inserts the entry, then calls `transition`.
   */
  advance?(
    t: WalletTransactionRecord,
    from: readonly WalletTransactionStatus[],
    patch: WalletTransactionPatch,
    signature: SignatureEntry | null,
  ): Promise<WalletTransactionRecord | null>;
  /**
   * Optional: `advance` and `events` (each with its webhook deliveries, as EventRepo.insert
   * writes them) in the same atomic step: the signature's (types `signature.*`) always, the
   * others (the transition's) only when the transition happens.
   */
  advanceWithEvents?(
    t: WalletTransactionRecord,
    from: readonly WalletTransactionStatus[],
    patch: WalletTransactionPatch,
    signature: SignatureEntry | null,
    events: StoredEvent[],
  ): Promise<WalletTransactionRecord | null>;
  /**
   * Atomically: moves the transaction from one of `from` to `abandoned` and gives its nonce back to
   * the wallet's sequence (the next `insertWithNextNonce` takes it first). Null when not moved.
   */
  abandon(
    appId: string,
    id: string,
    from: readonly WalletTransactionStatus[],
    patch: { error: string; updated_at: number },
  ): Promise<WalletTransactionRecord | null>;
  get(appId: string, id: string): Promise<WalletTransactionRecord | null>;
  /** The wallet's transactions, newest first, before the cursor id. */
  list(
    appId: string,
    walletId: string,
    query: { limit: number; before?: string | undefined },
  ): Promise<WalletTransactionPage>;
  /** The wallet's transactions on the chain still `preparing` or `signed` (not yet acknowledged by a node). */
  listUnsent(appId: string, walletId: string, chainId: string): Promise<WalletTransactionRecord[]>;
  findByIdempotencyKey(appId: string, walletId: string, key: string): Promise<WalletTransactionRecord | null>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    /** Transactions the wallets sent, and each wallet's nonce sequence per chain. */
    walletTransactions: WalletTransactionRepo;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    wtx: true;
  }
}
