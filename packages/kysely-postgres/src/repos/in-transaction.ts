import type { LatchkeyDb } from '../database.js';

/**
 * Runs `fn` in a transaction, or in the current one when `db` already is a transaction (Kysely
 * does not nest them). For the few repository methods that need more than one statement.
 */
export function inTransaction<T>(db: LatchkeyDb, fn: (trx: LatchkeyDb) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/**
 * Locks the user's row until the transaction ends, so multi-statement methods on one user's
 * rows run one at a time.
 */
export async function lockUser(trx: LatchkeyDb, appId: string, userId: string): Promise<void> {
  await trx
    .selectFrom('users')
    .select('id')
    .where('app_id', '=', appId)
    .where('id', '=', userId)
    .forUpdate()
    .execute();
}
