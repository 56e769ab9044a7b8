import type { WalletTransactionPatch } from '@latchkey/core';
import { type RawBuilder, sql } from 'kysely';
import { defineStatement } from './prepared-statements.js';
import { insertSignatureRows } from './prepared-wallet-statements.js';
import { withEvents } from './repos/event-repo.js';

/**
 * A send's nonce taken and its row stored, in one statement (WalletTransactionRepo.insertWithNextNonce,
 * issue 35): no BEGIN, no COMMIT, four statements fewer than a transaction that locks, reads,
 * updates and inserts. Parameters: wallet, chain, App, the floor (the chain's pending count, 0
 * when the caller trusts the sequence) and the row without its nonce, as JSON.
 *
 * - `created`: the wallet's first send on the chain makes the sequence, taking the floor.
 * - `seq`: otherwise the sequence's row, locked (FOR UPDATE waits for a concurrent send's
 *   commit, then returns the row as it committed it): every process takes nonces one at a time.
 * - `moved`: the lowest nonce given back at or above the floor, else the larger of the next and
 *   the floor, after which the sequence moves past it; nonces given back below the floor were
 *   used by something else, and are dropped.
 * - the insert: a second row with the same idempotency key fails on the unique index, and the
 *   whole statement with it (the sequence does not move): the caller reads the first row.
 *
 * No row comes back only when another process made the sequence after this statement's snapshot
 * (their first sends at once): the caller runs it again. `schema`: where the tables are (the
 * builder's `withSchema` does not reach raw SQL).
 */
export const takeNonceAndInsert = defineStatement(
  (
    _db,
    [walletId, chainId, appId, floor, row]: [string, string, string, number, string],
    schema: string | undefined,
  ) => {
    const table = (name: string) => sql.table(schema ? `${schema}.${name}` : name);
    const nonces = table('wallet_nonces');
    return sql<Record<string, unknown>>`with created as (
  insert into ${nonces} (wallet_id, chain_id, app_id, next_nonce, released)
  values (${walletId}, ${chainId}, ${appId}, ${floor}::bigint + 1, '[]'::jsonb)
  on conflict (wallet_id, chain_id) do nothing
  returning next_nonce - 1 as nonce
), seq as (
  select next_nonce, released,
    (select min(r::bigint) from jsonb_array_elements_text(released) as r where r::bigint >= ${floor}::bigint) as reused
  from ${nonces}
  where wallet_id = ${walletId} and chain_id = ${chainId}
  for update
), moved as (
  update ${nonces} as s set
    next_nonce = case when c.reused is null then greatest(c.next_nonce, ${floor}::bigint) + 1 else c.next_nonce end,
    released = coalesce(
      (select jsonb_agg(r::bigint order by r::bigint) from jsonb_array_elements_text(c.released) as r
        where r::bigint >= ${floor}::bigint and (c.reused is null or r::bigint <> c.reused)),
      '[]'::jsonb)
  from seq as c
  where s.wallet_id = ${walletId} and s.chain_id = ${chainId}
  returning coalesce(c.reused, greatest(c.next_nonce, ${floor}::bigint)) as nonce
), taken as (
  select nonce from created union all select nonce from moved
)
insert into ${table('wallet_transactions')} (id, app_id, wallet_id, chain_id, nonce, kind, status, to_address, value, data, gas_limit, max_fee_per_gas, max_priority_fee_per_gas, transaction_hash, raw_transaction, replaces, replaced_by, idempotency_key, block_number, gas_used, effective_gas_price, fee, error, created_at, updated_at)
select v.id, v.app_id, v.wallet_id, v.chain_id, taken.nonce, v.kind, v.status, v.to_address, v.value, v.data, v.gas_limit, v.max_fee_per_gas, v.max_priority_fee_per_gas, v.transaction_hash, v.raw_transaction, v.replaces, v.replaced_by, v.idempotency_key, v.block_number, v.gas_used, v.effective_gas_price, v.fee, v.error, v.created_at, v.updated_at
from taken, jsonb_to_record(${row}::jsonb) as v (id text, app_id text, wallet_id text, chain_id text, kind text, status text, to_address text, value numeric, data text, gas_limit numeric, max_fee_per_gas numeric, max_priority_fee_per_gas numeric, transaction_hash text, raw_transaction text, replaces text, replaced_by text, idempotency_key text, block_number numeric, gas_used numeric, effective_gas_price numeric, fee numeric, error text, created_at bigint, updated_at bigint)
returning *`;
  },
  (schema) => schema ?? '',
);

/** `list` as given, if it names every key of K: a key added to K and not listed fails to compile. */
const everyKeyOf =
  <K extends string>() =>
  <const L extends readonly K[]>(list: L & ([Exclude<K, L[number]>] extends [never] ? unknown : never)) =>
    list;

/**
 * The columns a transition may set (WalletTransactionPatch: each named as the column is). Every
 * field of the patch, or Postgres would drop one that memory applies.
 */
const PATCHED = everyKeyOf<keyof WalletTransactionPatch>()([
  'status',
  'transaction_hash',
  'raw_transaction',
  'replaced_by',
  'block_number',
  'gas_used',
  'effective_gas_price',
  'fee',
  'error',
  'updated_at',
]);

/**
 * A send's step in one statement (WalletTransactionRepo.advance / advanceWithEvents, issue 35):
 * the transition, the audit entry of the signature it stores (`signed`) and the events, no
 * BEGIN and no COMMIT. Parameters: App, id, the statuses it may leave (a text array), the patch
 * (JSON: a key absent leaves its column as it is, `jsonb_populate_record` over the row), the
 * audit entries (a JSON array, `[]` for none: inserted whether or not the row moves) and the
 * events (eventsParam's JSON, `[]` for none): the signature's (`signature.*`) always, the
 * others only when the row moved. Its one row is the moved row, or all nulls when it did not
 * move. One text for every patch and any entries, so it is prepared once per connection.
 */
export const advanceTransaction = defineStatement(
  (db, [appId, id, from, patch, entries, events]: [string, string, string[], string, string, string]) => {
    const moved = db
      .updateTable('wallet_transactions as t')
      .from(sql`(select ${patch}::jsonb as j)`.as('p'))
      .set(
        Object.fromEntries(
          PATCHED.map((c) => [c, sql`(jsonb_populate_record(t, p.j)).${sql.ref(c)}`]),
        ) as never,
      )
      .where('t.app_id', '=', appId)
      .where('t.id', '=', id)
      .where(sql<boolean>`t.status = any(cast(${from} as text[]))`)
      .returningAll('t');
    const audit = insertSignatureRows(db, entries);
    // One row whether or not the transition happened, so the signature's events have a row to follow.
    const written = sql<
      Record<string, unknown>
    >`select m.* from (select 1) as one left join moved as m on true`;
    return withEvents(
      db,
      // withEvents only places it in its text.
      written as never,
      events,
      sql<boolean>`(v.type like 'signature.%' or written.id is not null)`,
      sql`moved as (${moved}), audit as (${audit})`,
    ) as RawBuilder<Record<string, unknown>>;
  },
);
