import type {
  EventRecord,
  WalletSignatureRecord,
  WalletTransactionPatch,
  WalletTransactionRecord,
  WalletTransactionRepo,
  WalletTransactionStatus,
} from '@latchkey/core';
import type { Selectable } from 'kysely';
import type { LatchkeyDb, WalletTransactionsTable } from '../database.js';
import { advanceTransaction, takeNonceAndInsert } from '../prepared-send-statements.js';
import type { Statements } from '../prepared-statements.js';
import { definedOnly, fromJson, toJson, toSeconds } from './columns.js';
import { eventsParam } from './event-repo.js';
import { inTransaction } from './in-transaction.js';

const str = (v: string | null) => (v === null ? null : String(v));

const toTransaction = (row: Selectable<WalletTransactionsTable>): WalletTransactionRecord => ({
  id: row.id,
  app_id: row.app_id,
  wallet_id: row.wallet_id,
  chain_id: row.chain_id,
  nonce: row.nonce === null ? null : Number(row.nonce),
  kind: row.kind as WalletTransactionRecord['kind'],
  status: row.status as WalletTransactionStatus,
  to: row.to_address,
  value: String(row.value),
  data: row.data,
  gas_limit: str(row.gas_limit),
  max_fee_per_gas: str(row.max_fee_per_gas),
  max_priority_fee_per_gas: str(row.max_priority_fee_per_gas),
  transaction_hash: row.transaction_hash,
  raw_transaction: row.raw_transaction,
  replaces: row.replaces,
  replaced_by: row.replaced_by,
  idempotency_key: row.idempotency_key,
  block_number: str(row.block_number),
  gas_used: str(row.gas_used),
  effective_gas_price: str(row.effective_gas_price),
  fee: str(row.fee),
  error: row.error,
  created_at: toSeconds(row.created_at),
  updated_at: toSeconds(row.updated_at),
});

const toRow = (t: WalletTransactionRecord) => {
  const { to, ...rest } = t;
  return { ...rest, to_address: to };
};

/** Whether `err` is the unique index of idempotency keys refusing a second row. */
const isDuplicateKey = (err: unknown) =>
  typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';

/** `schema`: where the tables are, for the raw statement. */
export function kyselyWalletTransactionRepo(
  db: LatchkeyDb,
  statements: Statements,
  schema?: string,
): WalletTransactionRepo {
  const byKey = async (q: LatchkeyDb, appId: string, walletId: string, key: string) => {
    const row = await q
      .selectFrom('wallet_transactions')
      .selectAll()
      .where('app_id', '=', appId)
      .where('wallet_id', '=', walletId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    return row ? toTransaction(row) : null;
  };

  /** advance's one statement; its row has a null id when the transaction did not move. */
  const advance = async (
    t: WalletTransactionRecord,
    from: readonly WalletTransactionStatus[],
    patch: WalletTransactionPatch,
    signature: WalletSignatureRecord | null,
    events: EventRecord[],
  ) => {
    const [row] = await statements.run(advanceTransaction, [
      t.app_id,
      t.id,
      [...from],
      toJson(patch),
      toJson(signature ? [signature] : []),
      eventsParam(events),
    ]);
    return row?.id == null ? null : toTransaction(row as Selectable<WalletTransactionsTable>);
  };

  const repo: WalletTransactionRepo = {
    async insertWithNextNonce(t, floor) {
      const { nonce: _none, ...row } = toRow({ ...t, nonce: null });
      try {
        // Twice at most: no row only when another process made the sequence meanwhile.
        for (let attempt = 0; attempt < 3; attempt++) {
          const [stored] = await statements.run(
            takeNonceAndInsert,
            [t.wallet_id, t.chain_id, t.app_id, floor, JSON.stringify(row)],
            schema,
          );
          if (stored)
            return {
              transaction: toTransaction(stored as Selectable<WalletTransactionsTable>),
              created: true,
            };
        }
        throw new Error('wallet_nonces: the sequence could not be taken.');
      } catch (err) {
        // The same key, sent before or at once: the first one (this statement moved nothing).
        if (t.idempotency_key !== null && isDuplicateKey(err)) {
          const first = await byKey(db, t.app_id, t.wallet_id, t.idempotency_key);
          if (first) return { transaction: first, created: false };
        }
        throw err;
      }
    },

    async insert(t) {
      await db.insertInto('wallet_transactions').values(toRow(t)).execute();
    },

    async insertOnce(t) {
      // The partial unique index of keys decides between concurrent sends: the loser inserts nothing.
      const inserted = await db
        .insertInto('wallet_transactions')
        .values(toRow(t))
        .onConflict((oc) =>
          oc
            .columns(['app_id', 'wallet_id', 'idempotency_key'])
            .where('idempotency_key', 'is not', null)
            .doNothing(),
        )
        .returning('id')
        .executeTakeFirst();
      if (inserted) return { transaction: t, created: true };
      const first = await byKey(db, t.app_id, t.wallet_id, t.idempotency_key!);
      if (!first) throw new Error('wallet_transactions: an insert that conflicted found no row.');
      return { transaction: first, created: false };
    },

    async transition(appId, id, from, patch: WalletTransactionPatch) {
      const row = await db
        .updateTable('wallet_transactions')
        .set(definedOnly(patch))
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .where('status', 'in', [...from])
        .returningAll()
        .executeTakeFirst();
      return row ? toTransaction(row) : null;
    },

    advance: (t, from, patch, signature) => advance(t, from, patch, signature, []),
    advanceWithEvents: advance,

    async abandon(appId, id, from, patch) {
      return inTransaction(db, async (trx) => {
        const row = await trx
          .updateTable('wallet_transactions')
          .set({ status: 'abandoned', error: patch.error, updated_at: patch.updated_at })
          .where('app_id', '=', appId)
          .where('id', '=', id)
          .where('status', 'in', [...from])
          .returningAll()
          .executeTakeFirst();
        // A transaction without a nonce (Solana) has none to give back.
        if (!row || row.nonce === null) return row ? toTransaction(row) : null;
        const sequence = await trx
          .selectFrom('wallet_nonces')
          .select('released')
          .where('wallet_id', '=', row.wallet_id)
          .where('chain_id', '=', row.chain_id)
          .forUpdate()
          .executeTakeFirst();
        if (sequence) {
          const released = [...(fromJson(sequence.released) as number[]), Number(row.nonce)];
          await trx
            .updateTable('wallet_nonces')
            .set({ released: toJson(released) })
            .where('wallet_id', '=', row.wallet_id)
            .where('chain_id', '=', row.chain_id)
            .execute();
        }
        return toTransaction(row);
      });
    },

    async get(appId, id) {
      const row = await db
        .selectFrom('wallet_transactions')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toTransaction(row) : null;
    },

    findByIdempotencyKey: (appId, walletId, key) => byKey(db, appId, walletId, key),

    async list(appId, walletId, { limit, before }) {
      let q = db
        .selectFrom('wallet_transactions')
        .selectAll()
        .where('app_id', '=', appId)
        .where('wallet_id', '=', walletId);
      // An unknown cursor compares with null: an empty page.
      if (before !== undefined)
        q = q.where('seq', '<', (eb) =>
          eb
            .selectFrom('wallet_transactions')
            .select('seq')
            .where('app_id', '=', appId)
            .where('wallet_id', '=', walletId)
            .where('id', '=', before),
        );
      const rows = await q
        .orderBy('seq', 'desc')
        .limit(limit + 1)
        .execute();
      const page = rows.slice(0, limit).map(toTransaction);
      return { transactions: page, next_cursor: rows.length > limit ? page.at(-1)!.id : null };
    },

    async listUnsent(appId, walletId, chainId) {
      const rows = await db
        .selectFrom('wallet_transactions')
        .selectAll()
        .where('wallet_id', '=', walletId)
        .where('chain_id', '=', chainId)
        .where('status', 'in', ['preparing', 'signed'])
        .where('app_id', '=', appId)
        .orderBy('nonce')
        .execute();
      return rows.map(toTransaction);
    },
  };
  return repo;
}
