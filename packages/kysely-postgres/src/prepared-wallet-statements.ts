import { sql } from 'kysely';
import { defineStatement } from './prepared-statements.js';
import { withEvents } from './repos/event-repo.js';

/**
 * The two statements every signature sends (issue 35): its wallet read and its audit entry. Each
 * has one text whatever the size of the group it carries (the values travel as one array or one
 * JSON document), so on a pg Pool each is a named prepared statement, parsed and planned once per
 * connection, and the call skips building and compiling the query in Kysely.
 */

/** One wallet, by App and id: a read alone. */
export const walletById = defineStatement((db, [appId, walletId]: [string, string]) =>
  db.selectFrom('wallets').selectAll().where('app_id', '=', appId).where('id', '=', walletId),
);

/** Wallets by id, for a group of reads: the caller keeps each row only for its own App. */
export const walletsByIds = defineStatement((db, [ids]: [string[]]) =>
  db
    .selectFrom('wallets')
    .selectAll()
    .where(sql<boolean>`${sql.ref('id')} = any(cast(${ids} as text[]))`),
);

/**
 * Audit entries (a JSON array of rows, in the order they are to be listed) and the events they
 * imply (a JSON array, `[]` for none), with each event's webhook deliveries: one statement and one
 * commit for a group of signatures. `with ordinality`: the identity column `seq`, which orders
 * the trail, follows the array's order.
 */
export const insertSignatures = defineStatement((db, [entries, events]: [string, string]) =>
  withEvents(
    db,
    db
      .insertInto('wallet_signatures')
      .columns([
        'id',
        'app_id',
        'wallet_id',
        'method',
        'chain',
        'payload_digest',
        'decision',
        'policy_id',
        'rule_index',
        'rule_kind',
        'error_type',
        'key_kind',
        'created_at',
      ])
      .expression(
        sql`select v.id, v.app_id, v.wallet_id, v.method, v.chain, v.payload_digest, v.decision, v.policy_id, v.rule_index, v.rule_kind, v.error_type, v.key_kind, v.created_at from rows from (jsonb_to_recordset(${entries}::jsonb) as (id text, app_id text, wallet_id text, method text, chain text, payload_digest text, decision text, policy_id text, rule_index integer, rule_kind text, error_type text, key_kind text, created_at bigint)) with ordinality as v (id, app_id, wallet_id, method, chain, payload_digest, decision, policy_id, rule_index, rule_kind, error_type, key_kind, created_at, n) order by v.n`,
      )
      .returning('id'),
    events,
  ),
);
