import type { AppRepo } from '../apps/repo.js';
import type { EventRepo } from '../events/repo.js';
import type { MagicLinkRepo } from '../magic-links/repo.js';
import type { OtpRepo } from '../otps/repo.js';
import type { PasswordRepo } from '../password-auth/repo.js';
import type { RateLimitRepo } from '../rate-limits/repo.js';
import type { SessionRepo, SigningKeyRepo } from '../sessions/repo.js';
import type { TotpRepo } from '../totps/repo.js';
import type { ContactRepo, UserRepo } from '../users/repo.js';
import type { WalletChallengeRepo } from '../wallet-auth/repo.js';
import type { WalletPolicyRepo, WalletSignatureRepo, WalletSpendRepo } from '../wallet-policies/repo.js';
import type { WalletTransactionRepo } from '../wallet-transactions/repo.js';
import type { SeedRepo, WalletRepo } from '../wallets/repo.js';
import type { WebAuthnRepo } from '../webauthn/repo.js';
import type { WebhookRepo } from '../webhooks/repo.js';

/**
 * Where Latchkey keeps its state. Every method is scoped by App (but `apps` itself). Methods
 * whose doc comment says "atomic" must hold under concurrent callers in many processes; a
 * service never composes them into read-then-write.
 *
 * Adapters throw `LatchkeyError('storage_unavailable')` when the backend cannot be reached, so
 * callers see a 503, not a 500.
 */
export interface Storage {
  apps: AppRepo;
  users: UserRepo;
  emails: ContactRepo;
  phoneNumbers: ContactRepo;
  otps: OtpRepo;
  magicLinks: MagicLinkRepo;
  passwords: PasswordRepo;
  totps: TotpRepo;
  webauthn: WebAuthnRepo;
  walletChallenges: WalletChallengeRepo;
  sessions: SessionRepo;
  signingKeys: SigningKeyRepo;
  rateLimits: RateLimitRepo;
  wallets: WalletRepo;
  seeds: SeedRepo;
  walletPolicies: WalletPolicyRepo;
  walletSpends: WalletSpendRepo;
  /** The audit trail of signing requests. */
  walletSignatures: WalletSignatureRepo;
  /** Transactions the wallets sent, and each wallet's nonce sequence per chain. */
  walletTransactions: WalletTransactionRepo;
  events: EventRepo;
  webhooks: WebhookRepo;
  /**
   * Runs `fn` in one transaction: every write made through `tx` lands, or none does when `fn`
   * throws (and the error is rethrown). Nested calls on `tx` join the outer transaction.
   */
  transaction<T>(fn: (tx: Storage) => Promise<T>): Promise<T>;
  /** Releases connections the adapter opened itself. */
  close(): Promise<void>;
}
