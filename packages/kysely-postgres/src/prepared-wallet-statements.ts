import { sql } from 'kysely';
import type { LatchkeyDb, WalletsTable } from './database.js';
import { defineStatement } from './prepared-statements.js';
import { withEvents } from './repos/event-repo.js';

/** Every column of `wallets`, in the table's order. */
export const WALLET_COLUMNS = [
  'id',
  'app_id',
  'user_id',
  'wallet_type',
  'network',
  'public_address',
  'key_source',
  'derivation_path',
  'key_id',
  'sealed_private_key',
  'is_default',
  'is_imported',
  'is_read_only',
  'verified',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof WalletsTable>;

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
 * The insert of audit entries (a JSON array of rows) into `wallet_signatures`, in the array's
 * order: the identity column `seq`, which orders the trail, follows it (`with ordinality`).
 */
export const insertSignatureRows = (db: LatchkeyDb, entries: string) =>
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
    );

/**
 * Audit entries (a JSON array of rows, in the order they are to be listed) and the events they
 * imply (a JSON array, `[]` for none), with each event's webhook deliveries: one statement and one
 * commit for a group of signatures. `with ordinality`: the identity column `seq`, which orders
 * the trail, follows the array's order.
 */
export const insertSignatures = defineStatement((db, [entries, events]: [string, string]) =>
  withEvents(db, insertSignatureRows(db, entries).returning('id'), events),
);

/**
 * The first step of wallets/create (WalletRepo.getDefaultWithSeed): the user's default wallet of
 * the type and their seed, each a JSON row or null, in one row.
 */
export const defaultWalletAndSeed = defineStatement(
  (db, [appId, userId, walletType]: [string, string, string]) =>
    db.selectNoFrom((eb) => [
      eb
        .selectFrom('wallets')
        .select(sql<unknown>`to_jsonb(wallets)`.as('row'))
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .where('wallet_type', '=', walletType)
        .where('is_default', '=', true)
        .as('wallet'),
      eb
        .selectFrom('seeds')
        .select(sql<unknown>`to_jsonb(seeds)`.as('row'))
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .as('seed'),
    ]),
);

/**
 * A new user's seed, their first wallet (derived from it: `key_id` is the seed's id) and the
 * wallet's events (a JSON array, `[]` for none), in one statement (WalletRepo.createDefaultWithSeed).
 * The seed is stored only if the user has none and no default of the type; the wallet only if
 * the seed was, so concurrent creates store one seed and one wallet: the rest insert nothing
 * (ON CONFLICT waits for the winner's commit) and read again. The rows travel as JSON, so the
 * text is one whatever they hold.
 */
export const insertSeedAndWallet = defineStatement(
  (
    db,
    [appId, userId, walletType, seed, wallet, events]: [string, string, string, string, string, string],
  ) => {
    const defaultExists = db
      .selectFrom('wallets')
      .select(sql.lit(1).as('one'))
      .where('app_id', '=', appId)
      .where('user_id', '=', userId)
      .where('wallet_type', '=', walletType)
      .where('is_default', '=', true);
    const newSeed = db
      .insertInto('seeds')
      .columns(['id', 'app_id', 'user_id', 'sealed_entropy', 'created_at'])
      .expression(
        sql`select s.id, s.app_id, s.user_id, s.sealed_entropy, s.created_at from jsonb_to_record(${seed}::jsonb) as s (id text, app_id text, user_id text, sealed_entropy text, created_at bigint) where not exists (${defaultExists})`,
      )
      .onConflict((oc) => oc.columns(['app_id', 'user_id']).doNothing())
      .returning('id');
    const newWallet = db
      .insertInto('wallets')
      .columns(WALLET_COLUMNS)
      .expression(
        sql`select v.id, v.app_id, v.user_id, v.wallet_type, v.network, v.public_address, v.key_source, v.derivation_path, v.key_id, v.sealed_private_key, v.is_default, v.is_imported, v.is_read_only, v.verified, v.created_at, v.updated_at from jsonb_to_record(${wallet}::jsonb) as v (id text, app_id text, user_id text, wallet_type text, network text, public_address text, key_source text, derivation_path text, key_id text, sealed_private_key text, is_default boolean, is_imported boolean, is_read_only boolean, verified boolean, created_at bigint, updated_at bigint) join new_seed on new_seed.id = v.key_id`,
      )
      .onConflict((oc) => oc.doNothing())
      .returningAll();
    return withEvents(db, newWallet, events, sql<boolean>`true`, sql`new_seed as (${newSeed})`);
  },
);
