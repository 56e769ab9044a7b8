import type {
  ApiKeyKind,
  EventRecord,
  PolicyRule,
  PolicyRuleKind,
  SignatureDecision,
  SpendAsset,
  WalletPolicyRecord,
  WalletPolicyRepo,
  WalletSignatureRecord,
  WalletSignatureRepo,
  WalletSpendRepo,
  WalletType,
} from '@latchkey/core';
import { type Selectable, sql } from 'kysely';
import type { LatchkeyDb, WalletPoliciesTable, WalletSignaturesTable } from '../database.js';
import type { Statements } from '../prepared-statements.js';
import { insertSignatures } from '../prepared-wallet-statements.js';
import { batched } from './batched.js';
import { definedOnly, fromJson, toJson, toSeconds } from './columns.js';
import { eventsParam } from './event-repo.js';
import { inTransaction } from './in-transaction.js';

const toPolicy = (row: Selectable<WalletPoliciesTable>): WalletPolicyRecord => ({
  id: row.id,
  app_id: row.app_id,
  name: row.name,
  wallet_id: row.wallet_id,
  rules: fromJson(row.rules) as PolicyRule[],
  created_at: toSeconds(row.created_at),
  updated_at: toSeconds(row.updated_at),
});

export function kyselyWalletPolicyRepo(db: LatchkeyDb): WalletPolicyRepo {
  return {
    async insert(p, { maxPerApp }) {
      // The App's row, locked against other policy inserts (NO KEY UPDATE: the foreign-key checks
      // of the App's other writes still pass), queues them; under READ COMMITTED the count after
      // the lock sees every policy committed before it was granted.
      return inTransaction(db, async (trx) => {
        await trx.selectFrom('apps').select('id').where('id', '=', p.app_id).forNoKeyUpdate().execute();
        const { count } = await trx
          .selectFrom('wallet_policies')
          .select((eb) => eb.fn.countAll<string>().as('count'))
          .where('app_id', '=', p.app_id)
          .executeTakeFirstOrThrow();
        if (Number(count) >= maxPerApp) return { inserted: false };
        await trx
          .insertInto('wallet_policies')
          .values({
            id: p.id,
            app_id: p.app_id,
            name: p.name,
            wallet_id: p.wallet_id,
            rules: toJson(p.rules),
            created_at: p.created_at,
            updated_at: p.updated_at,
          })
          .execute();
        return { inserted: true };
      });
    },

    async get(appId, policyId) {
      const row = await db
        .selectFrom('wallet_policies')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', policyId)
        .executeTakeFirst();
      return row ? toPolicy(row) : null;
    },

    async list(appId, { walletId, limit, after }) {
      let q = db.selectFrom('wallet_policies').selectAll().where('app_id', '=', appId);
      if (walletId !== undefined) q = q.where('wallet_id', '=', walletId);
      if (after !== undefined) q = q.where('id', '>', after);
      const rows = await q
        .orderBy('id')
        .limit(limit + 1)
        .execute();
      const page = rows.slice(0, limit).map(toPolicy);
      return { policies: page, next_cursor: rows.length > limit ? page.at(-1)!.id : null };
    },

    async listForWallet(appId, walletId) {
      const rows = await db
        .selectFrom('wallet_policies')
        .selectAll()
        .where('app_id', '=', appId)
        .where((eb) => eb.or([eb('wallet_id', 'is', null), eb('wallet_id', '=', walletId)]))
        .orderBy('id')
        .execute();
      return rows.map(toPolicy);
    },

    async update(appId, policyId, patch) {
      const row = await db
        .updateTable('wallet_policies')
        .set(
          definedOnly({
            name: patch.name,
            rules: patch.rules === undefined ? undefined : toJson(patch.rules),
            updated_at: patch.updated_at,
          }),
        )
        .where('app_id', '=', appId)
        .where('id', '=', policyId)
        .returningAll()
        .executeTakeFirst();
      return row ? toPolicy(row) : null;
    },

    async delete(appId, policyId) {
      const row = await db
        .deleteFrom('wallet_policies')
        .where('app_id', '=', appId)
        .where('id', '=', policyId)
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

export function kyselyWalletSpendRepo(db: LatchkeyDb): WalletSpendRepo {
  return {
    async reserve(spend, since, limit) {
      // The wallet's row lock puts concurrent reservations for one wallet in a queue; under READ
      // COMMITTED each statement after it sees every spend committed before the lock was granted,
      // so the sum is current when it is judged. (One statement could not: its snapshot predates
      // the wait.)
      return inTransaction(db, async (trx) => {
        await trx
          .selectFrom('wallets')
          .select('id')
          .where('app_id', '=', spend.app_id)
          .where('id', '=', spend.wallet_id)
          .forUpdate()
          .execute();
        const row = await trx
          .selectFrom('wallet_spends')
          .select(sql<string>`coalesce(sum(amount), 0)::text`.as('spent'))
          .where('wallet_id', '=', spend.wallet_id)
          .where('asset', '=', spend.asset)
          .where('created_at', '>', since)
          .where('app_id', '=', spend.app_id)
          .executeTakeFirstOrThrow();
        const spent = BigInt(row.spent);
        if (spent + spend.amount > limit) return { reserved: false, spent };
        await trx
          .insertInto('wallet_spends')
          .values({
            id: spend.id,
            app_id: spend.app_id,
            wallet_id: spend.wallet_id,
            asset: spend.asset satisfies SpendAsset,
            amount: spend.amount.toString(),
            created_at: spend.created_at,
          })
          .execute();
        return { reserved: true, spent };
      });
    },

    async release(appId, spendId) {
      await db.deleteFrom('wallet_spends').where('app_id', '=', appId).where('id', '=', spendId).execute();
    },

    async prune(before) {
      await db.deleteFrom('wallet_spends').where('created_at', '<', before).execute();
    },
  };
}

const toSignature = (row: Selectable<WalletSignaturesTable>): WalletSignatureRecord => ({
  id: row.id,
  app_id: row.app_id,
  wallet_id: row.wallet_id,
  method: row.method as WalletSignatureRecord['method'],
  chain: row.chain as WalletType,
  payload_digest: row.payload_digest,
  decision: row.decision as SignatureDecision,
  policy_id: row.policy_id,
  rule_index: row.rule_index === null ? null : Number(row.rule_index),
  rule_kind: row.rule_kind as PolicyRuleKind | null,
  error_type: row.error_type,
  key_kind: row.key_kind as ApiKeyKind,
  created_at: toSeconds(row.created_at),
});

const signatureRow = (e: WalletSignatureRecord) => ({
  id: e.id,
  app_id: e.app_id,
  wallet_id: e.wallet_id,
  method: e.method,
  chain: e.chain,
  payload_digest: e.payload_digest,
  decision: e.decision,
  policy_id: e.policy_id,
  rule_index: e.rule_index,
  rule_kind: e.rule_kind,
  error_type: e.error_type,
  key_kind: e.key_kind,
  created_at: e.created_at,
});

export function kyselyWalletSignatureRepo(db: LatchkeyDb, statements: Statements): WalletSignatureRepo {
  type Entry = { entry: WalletSignatureRecord; events: EventRecord[] };
  const writeAll = async (entries: Entry[]) => {
    // One text for any group (prepared-wallet-statements.ts): rows and events travel as JSON.
    await statements.run(insertSignatures, [
      toJson(entries.map((e) => signatureRow(e.entry))),
      eventsParam(entries.flatMap((e) => e.events)),
    ]);
    return entries.map(() => undefined);
  };
  // Group commit: concurrent signatures' audit entries share a statement and its commit (each
  // caller still waits for its own entry to be written). A caller's transaction shares nothing.
  const write = db.isTransaction ? (e: Entry) => writeAll([e]) : batched(writeAll);
  return {
    async insert(e) {
      await db.insertInto('wallet_signatures').values(signatureRow(e)).execute();
    },

    async insertWithEvents(entry, events) {
      await write({ entry, events });
    },

    async list(appId, walletId, { limit, before }) {
      let q = db
        .selectFrom('wallet_signatures')
        .selectAll()
        .where('app_id', '=', appId)
        .where('wallet_id', '=', walletId);
      // An unknown cursor compares with null: an empty page.
      if (before !== undefined)
        q = q.where('seq', '<', (eb) =>
          eb
            .selectFrom('wallet_signatures')
            .select('seq')
            .where('app_id', '=', appId)
            .where('id', '=', before),
        );
      const rows = await q
        .orderBy('seq', 'desc')
        .limit(limit + 1)
        .execute();
      const page = rows.slice(0, limit).map(toSignature);
      return { signatures: page, next_cursor: rows.length > limit ? page.at(-1)!.id : null };
    },
  };
}
