import { type Kysely, sql } from 'kysely';

/**
 * Events (the outbox webhooks deliver from), webhook endpoints, one delivery row per event and
 * endpoint, and the log of attempts. Ids compare in byte order (COLLATE "C") so event cursors
 * follow creation order. Everything goes with its App.
 */
const collateC = sql`collate "C"`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.modifyFront(collateC).primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_app_id_id_idx').on('events').columns(['app_id', 'id']).execute();
  await db.schema
    .createIndex('events_app_id_type_id_idx')
    .on('events')
    .columns(['app_id', 'type', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.modifyFront(collateC).primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'jsonb', (c) => c.notNull())
    .addColumn('sealed_secret', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_app_id_idx')
    .on('webhook_endpoints')
    .column('app_id')
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('event_id', 'text', (c) =>
      c.modifyFront(collateC).notNull().references('events.id').onDelete('cascade'),
    )
    .addColumn('endpoint_id', 'text', (c) =>
      c.modifyFront(collateC).notNull().references('webhook_endpoints.id').onDelete('cascade'),
    )
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint')
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('delivered_at', 'bigint')
    .addPrimaryKeyConstraint('webhook_deliveries_pkey', ['event_id', 'endpoint_id'])
    .execute();
  // The worker's scan: only what is still owed, by due time.
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .column('next_attempt_at')
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint_id_idx')
    .on('webhook_deliveries')
    .column('endpoint_id')
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.modifyFront(collateC).primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('attempted_at', 'bigint', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addForeignKeyConstraint(
      'webhook_attempts_delivery_fkey',
      ['event_id', 'endpoint_id'],
      'webhook_deliveries',
      ['event_id', 'endpoint_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_endpoints', 'events'])
    await db.schema.dropTable(table).execute();
}
