import type { Kysely } from 'kysely';

/**
 * Solana sends share wallet_transactions with EVM ones: a Solana transaction has no nonce, gas
 * limit or fee caps, and a `sol_transaction` no single recipient, so those columns take null.
 * EVM rows still always fill them.
 */
const COLUMNS = ['nonce', 'to_address', 'gas_limit', 'max_fee_per_gas', 'max_priority_fee_per_gas'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS)
    await db.schema
      .alterTable('wallet_transactions')
      .alterColumn(column, (c) => c.dropNotNull())
      .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db
    .deleteFrom('wallet_transactions' as never)
    .where('nonce' as never, 'is', null)
    .execute();
  for (const column of COLUMNS)
    await db.schema
      .alterTable('wallet_transactions')
      .alterColumn(column, (c) => c.setNotNull())
      .execute();
}
