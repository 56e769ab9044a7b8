import { type Kysely, sql } from 'kysely';

/**
 * Fair webhook delivery: each endpoint's failures in a row and the pause they earn it, and the
 * two scans the claim makes on every call: an endpoint's due deliveries, oldest first, and the
 * leases in flight (the per-App and per-endpoint caps count them).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('paused_until', 'bigint')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint_due_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'next_attempt_at', 'event_id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_leased_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'app_id'])
    .where(sql.ref('lease_until'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_leased_idx').execute();
  await db.schema.dropIndex('webhook_deliveries_endpoint_due_idx').execute();
  await db.schema
    .alterTable('webhook_endpoints')
    .dropColumn('paused_until')
    .dropColumn('consecutive_failures')
    .execute();
}
