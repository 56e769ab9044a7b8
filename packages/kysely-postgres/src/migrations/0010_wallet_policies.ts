import { type Kysely, sql } from 'kysely';

/**
 * Wallet policies, the spend ledger their daily caps sum over, and the audit trail of signing
 * requests. Policy ids compare in byte order (COLLATE "C") because policy lists page by id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wallet_policies')
    .addColumn('id', 'text', (c) => c.modifyFront(sql`collate "C"`).primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // Null: the policy governs every wallet of the App.
    .addColumn('wallet_id', 'text', (c) => c.references('wallets.id').onDelete('cascade'))
    .addColumn('rules', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('wallet_policies_app_id_id_idx')
    .on('wallet_policies')
    .columns(['app_id', 'id'])
    .execute();
  await db.schema
    .createIndex('wallet_policies_app_id_wallet_id_idx')
    .on('wallet_policies')
    .columns(['app_id', 'wallet_id'])
    .execute();

  await db.schema
    .createTable('wallet_spends')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id').onDelete('cascade'))
    .addColumn('asset', 'text', (c) => c.notNull())
    // Wei outgrow bigint: 78 digits hold any uint256.
    .addColumn('amount', 'numeric(78, 0)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // The daily sum reads one wallet's spends of one asset within a window.
  await db.schema
    .createIndex('wallet_spends_wallet_asset_created_at_idx')
    .on('wallet_spends')
    .columns(['wallet_id', 'asset', 'created_at'])
    .execute();
  await db.schema
    .createIndex('wallet_spends_created_at_idx')
    .on('wallet_spends')
    .column('created_at')
    .execute();

  await db.schema
    .createTable('wallet_signatures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id').onDelete('cascade'))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('payload_digest', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('policy_id', 'text')
    .addColumn('rule_index', 'integer')
    .addColumn('rule_kind', 'text')
    .addColumn('error_type', 'text')
    .addColumn('key_kind', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // Newest-first pages of one wallet's trail.
  await db.schema
    .createIndex('wallet_signatures_app_id_wallet_id_seq_idx')
    .on('wallet_signatures')
    .columns(['app_id', 'wallet_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('wallet_signatures').execute();
  await db.schema.dropTable('wallet_spends').execute();
  await db.schema.dropTable('wallet_policies').execute();
}
