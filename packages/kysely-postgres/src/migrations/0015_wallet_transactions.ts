import { type Kysely, sql } from 'kysely';

/**
 * Transactions the wallets send, and each wallet's nonce sequence per EVM chain. Wei amounts are
 * numeric(78, 0) (any uint256); nonces are bigint.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wallet_transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id').onDelete('cascade'))
    .addColumn('chain_id', 'text', (c) => c.notNull())
    .addColumn('nonce', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('value', 'numeric(78, 0)', (c) => c.notNull())
    .addColumn('data', 'text')
    .addColumn('gas_limit', 'numeric(78, 0)', (c) => c.notNull())
    .addColumn('max_fee_per_gas', 'numeric(78, 0)', (c) => c.notNull())
    .addColumn('max_priority_fee_per_gas', 'numeric(78, 0)', (c) => c.notNull())
    .addColumn('transaction_hash', 'text')
    .addColumn('raw_transaction', 'text')
    .addColumn('replaces', 'text')
    .addColumn('replaced_by', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('block_number', 'numeric(78, 0)')
    .addColumn('gas_used', 'numeric(78, 0)')
    .addColumn('effective_gas_price', 'numeric(78, 0)')
    .addColumn('fee', 'numeric(78, 0)')
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Newest-first pages of one wallet's transactions.
  await db.schema
    .createIndex('wallet_transactions_app_id_wallet_id_seq_idx')
    .on('wallet_transactions')
    .columns(['app_id', 'wallet_id', 'seq'])
    .execute();
  // One send per key and wallet, whatever the concurrency.
  await db.schema
    .createIndex('wallet_transactions_idempotency_key_idx')
    .on('wallet_transactions')
    .columns(['app_id', 'wallet_id', 'idempotency_key'])
    .unique()
    .where(sql.ref('idempotency_key'), 'is not', null)
    .execute();
  // Every send looks for what a dead process left unsent: a small partial index.
  await db.schema
    .createIndex('wallet_transactions_unsent_idx')
    .on('wallet_transactions')
    .columns(['wallet_id', 'chain_id'])
    .where(sql.ref('status'), 'in', sql`('preparing', 'signed')`)
    .execute();

  await db.schema
    .createTable('wallet_nonces')
    .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id').onDelete('cascade'))
    .addColumn('chain_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('next_nonce', 'bigint', (c) => c.notNull())
    // Nonces given back by sends never broadcast, taken again first.
    .addColumn('released', 'jsonb', (c) => c.notNull())
    .addPrimaryKeyConstraint('wallet_nonces_pkey', ['wallet_id', 'chain_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('wallet_nonces').execute();
  await db.schema.dropTable('wallet_transactions').execute();
}
