import type { Storage } from '@latchkey/core';
import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import { migrateDatabase } from './migrate.js';
import { type OpenDatabase, openDatabase, type StorageSource } from './open-database.js';
import { type RunCompiled, type StatementCache, statementsOn } from './prepared-statements.js';
import { kyselyAppRepo } from './repos/app-repo.js';
import { kyselyContactRepo } from './repos/contact-repo.js';
import { kyselyEventRepo, kyselyWebhookRepo } from './repos/event-repo.js';
import { kyselyMagicLinkRepo } from './repos/magic-link-repo.js';
import { kyselyOAuthRepo } from './repos/oauth-repo.js';
import { kyselyOrganizationRepo } from './repos/organization-repo.js';
import { kyselyOtpRepo } from './repos/otp-repo.js';
import { kyselyPasswordRepo } from './repos/password-repo.js';
import { kyselyRateLimitRepo } from './repos/rate-limit-repo.js';
import { kyselySessionRepo } from './repos/session-repo.js';
import { kyselySigningKeyRepo } from './repos/signing-key-repo.js';
import { kyselySsoRepo } from './repos/sso-repo.js';
import { kyselyTotpRepo } from './repos/totp-repo.js';
import { kyselyUserRepo } from './repos/user-repo.js';
import { kyselyWalletChallengeRepo } from './repos/wallet-challenge-repo.js';
import {
  kyselyWalletPolicyRepo,
  kyselyWalletSignatureRepo,
  kyselyWalletSpendRepo,
} from './repos/wallet-policy-repo.js';
import { kyselySeedRepo, kyselyWalletRepo } from './repos/wallet-repo.js';
import { kyselyWalletTransactionRepo } from './repos/wallet-transaction-repo.js';
import { kyselyWebAuthnRepo } from './repos/webauthn-repo.js';
import { revocationChannelName } from './revocations/channel-name.js';
import { sharedRevocationChannel } from './revocations/shared-channel.js';
import { toStorageError, withStorageErrors } from './storage-errors.js';

/** What every constructor takes besides the connection. */
export interface StorageSetup {
  /** Postgres schema for Latchkey's tables (created by the migrations); the search path when absent. */
  schema?: string;
  /** Apply pending migrations before returning the Storage. */
  migrate?: boolean;
}

export type KyselyStorageOptions = StorageSource & StorageSetup;

/**
 * Latchkey's Storage on Kysely, over real Postgres (`pool`), embedded PGlite (`pglite`) or a host
 * app's Kysely instance (`db`). `close()` leaves what was passed in open. On `pool` and `pglite`
 * the Storage announces revocations through LISTEN/NOTIFY (`sessionRevocations`); on `db`, which
 * shows no connection to listen on, it keeps the record only: pass `createLatchkey` a
 * `revocationChannel`, or a session JWT is accepted until it expires.
 */
export async function kyselyStorage(options: KyselyStorageOptions): Promise<Storage> {
  return storageOn(openDatabase(options), options);
}

/** Builds the Storage over an opened database; on a failed migration, closes what it opened. */
export async function storageOn(opened: OpenDatabase, options: StorageSetup): Promise<Storage> {
  try {
    if (options.migrate) await migrateDatabase(opened.db, options.schema);
  } catch (err) {
    await opened.close();
    throw err;
  }
  const { listen } = opened;
  const revocations =
    listen && sharedRevocationChannel(listen, () => revocationChannelName(opened.db, options.schema));
  return {
    ...bind(opened.db, options.schema, opened.statements, opened.pool),
    ...(revocations ? { sessionRevocations: revocations.channel } : {}),
    async close() {
      // The LISTEN first: PGlite's UNLISTEN goes through the database this closes.
      await revocations?.close();
      await opened.close();
    },
  };
}

/**
 * The Storage's repositories and transaction on `db`, which is either the database or one
 * transaction (`pool` only outside one: it runs on any of the Pool's connections). The compiled
 * statements are the Storage's, shared by its transactions.
 */
function bind(
  root: Kysely<Database>,
  schema: string | undefined,
  cache: StatementCache,
  pool?: RunCompiled,
): Storage {
  const db = schema ? root.withSchema(schema) : root;
  const statements = statementsOn(db, cache, pool);
  const storage: Storage = {
    apps: withStorageErrors(kyselyAppRepo(db)),
    users: withStorageErrors(kyselyUserRepo(db, statements)),
    emails: withStorageErrors(kyselyContactRepo(db, statements, 'emails')),
    phoneNumbers: withStorageErrors(kyselyContactRepo(db, statements, 'phone_numbers')),
    otps: withStorageErrors(kyselyOtpRepo(db, statements)),
    magicLinks: withStorageErrors(kyselyMagicLinkRepo(db, statements)),
    passwords: withStorageErrors(kyselyPasswordRepo(db, statements)),
    oauth: withStorageErrors(kyselyOAuthRepo(db, statements)),
    organizations: withStorageErrors(kyselyOrganizationRepo(db)),
    sso: withStorageErrors(kyselySsoRepo(db)),
    sessions: withStorageErrors(kyselySessionRepo(db, statements)),
    signingKeys: withStorageErrors(kyselySigningKeyRepo(db)),
    rateLimits: withStorageErrors(kyselyRateLimitRepo(db, statements, schema)),
    wallets: withStorageErrors(kyselyWalletRepo(db, statements)),
    seeds: withStorageErrors(kyselySeedRepo(db)),
    totps: withStorageErrors(kyselyTotpRepo(db, statements)),
    webauthn: withStorageErrors(kyselyWebAuthnRepo(db, statements)),
    walletChallenges: withStorageErrors(kyselyWalletChallengeRepo(db, statements)),
    walletPolicies: withStorageErrors(kyselyWalletPolicyRepo(db)),
    walletSpends: withStorageErrors(kyselyWalletSpendRepo(db)),
    walletSignatures: withStorageErrors(kyselyWalletSignatureRepo(db, statements)),
    walletTransactions: withStorageErrors(kyselyWalletTransactionRepo(db, statements, schema)),
    events: withStorageErrors(kyselyEventRepo(db, statements)),
    webhooks: withStorageErrors(kyselyWebhookRepo(db, schema)),
    async transaction(fn) {
      // Inside a transaction (ours, or one the host handed in as `db`), nested calls join it.
      if (root.isTransaction) return fn(storage);
      let fnError: unknown;
      try {
        return await root.transaction().execute((trx) =>
          fn(bind(trx, schema, cache)).catch((err: unknown) => {
            fnError = err;
            throw err;
          }),
        );
      } catch (err) {
        // What `fn` threw is the caller's; begin, commit and rollback failures are ours to map.
        throw err === fnError ? err : toStorageError(err);
      }
    },
    // A transaction's Storage closes nothing; the outer Storage replaces this.
    close: async () => {},
  };
  return storage;
}
