import { type Storage, userWithMethodsFromLists } from '@latchkey/core';
import { memoryAppRepo } from './app-repo.js';
import { memoryEventRepo, memoryWebhookRepo } from './event-repo.js';
import { createJournal } from './journal.js';
import { memoryMagicLinkRepo } from './magic-link-repo.js';
import { createMutex } from './mutex.js';
import { memoryOAuthRepo } from './oauth-repo.js';
import { memoryOrganizationRepo } from './organization-repo.js';
import { memoryOtpRepo } from './otp-repo.js';
import { memoryPasswordRepo } from './password-repo.js';
import { memoryRateLimitRepo } from './rate-limit-repo.js';
import { memoryRevocationChannel, memorySessionRepo, memorySigningKeyRepo } from './session-repo.js';
import { memorySsoRepo } from './sso-repo.js';
import { emptyState } from './state.js';
import { memoryTotpRepo } from './totp-repo.js';
import { memoryContactRepo, memoryUserRepo } from './user-repo.js';
import { memoryWalletChallengeRepo } from './wallet-challenge-repo.js';
import {
  memoryWalletPolicyRepo,
  memoryWalletSignatureRepo,
  memoryWalletSpendRepo,
} from './wallet-policy-repo.js';
import { memorySeedRepo, memoryWalletRepo } from './wallet-repo.js';
import { memoryWalletTransactionRepo } from './wallet-transaction-repo.js';
import { memoryWebAuthnRepo } from './webauthn-repo.js';

type Repos = Omit<Storage, 'transaction' | 'close'>;

/**
 * Storage in process memory, for tests and demos. Operations and transactions run one at a
 * time (serializable); a transaction that throws restores the state it started from. Nothing
 * survives the process.
 */
export function memoryStorage(): Storage {
  const journal = createJournal();
  const state = emptyState(journal);
  const exclusive = createMutex();
  const users = memoryUserRepo(state);
  const revocations = memoryRevocationChannel();
  const userExists = (appId: string, userId: string) => state.users.get(userId)?.app_id === appId;
  const walletSignatures = memoryWalletSignatureRepo(state.walletSignatures, state.index.signaturesByWallet);
  const repos: Repos = {
    apps: memoryAppRepo(state),
    users: {
      ...users,
      // Called with the lock held, so it reads the other repos directly.
      getWithMethods: async (appId, userId) =>
        userWithMethodsFromLists(repos, await users.get(appId, userId)),
    },
    emails: memoryContactRepo(state.emails),
    phoneNumbers: memoryContactRepo(state.phoneNumbers),
    otps: memoryOtpRepo(state.otps),
    magicLinks: memoryMagicLinkRepo(state.magicLinks),
    passwords: memoryPasswordRepo(state.passwords),
    oauth: memoryOAuthRepo(state.oauthFlows, state.oauthLinks),
    organizations: memoryOrganizationRepo(
      state.organizations,
      state.organizationMembers,
      state.organizationInvitations,
      userExists,
    ),
    sso: memorySsoRepo(state.ssoConnections, state.organizations),
    sessions: memorySessionRepo(state.sessions, state.sessionRevocations, revocations.announce),
    signingKeys: memorySigningKeyRepo(state.signingKeys),
    rateLimits: memoryRateLimitRepo(state.rateLimits),
    wallets: memoryWalletRepo(state.wallets, state.seeds, state.index, userExists),
    totps: memoryTotpRepo(state.totps, state.recoveryCodes),
    seeds: memorySeedRepo(state.seeds, state.index, userExists),
    webauthn: memoryWebAuthnRepo(state.webauthnCredentials, state.webauthnChallenges),
    walletChallenges: memoryWalletChallengeRepo(state.walletChallenges),
    walletPolicies: memoryWalletPolicyRepo(state.walletPolicies),
    walletSpends: memoryWalletSpendRepo(state.walletSpends),
    walletSignatures,
    walletTransactions: memoryWalletTransactionRepo(
      state.walletTransactions,
      state.walletNonces,
      walletSignatures,
    ),
    events: memoryEventRepo(state),
    webhooks: memoryWebhookRepo(state),
  };

  // Inside a transaction the lock is already held: the tx handle calls the repos directly.
  const tx: Storage = {
    ...repos,
    transaction: (fn) => fn(tx),
    close: async () => {},
  };

  return {
    ...lockEachMethod(repos, exclusive),
    sessionRevocations: revocations.channel,
    transaction: (fn) =>
      exclusive(async () => {
        journal.begin();
        try {
          const result = await fn(tx);
          journal.commit();
          return result;
        } catch (err) {
          journal.rollback();
          throw err;
        }
      }),
    close: async () => {},
  };
}

function lockEachMethod(repos: Repos, exclusive: ReturnType<typeof createMutex>): Repos {
  const wrapped: Record<string, Record<string, unknown>> = {};
  for (const [name, repo] of Object.entries(repos)) {
    wrapped[name] = Object.fromEntries(
      Object.entries(repo as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>).map(
        ([method, fn]) => [method, (...args: unknown[]) => exclusive(() => fn(...args))],
      ),
    );
  }
  return wrapped as unknown as Repos;
}
