/** The chains whose wallets can sign in by signed message. */
export const SIGN_IN_WALLET_TYPES = ['ethereum', 'solana'] as const;
export type SignInWalletType = (typeof SIGN_IN_WALLET_TYPES)[number];

/**
 * One sign-in challenge: the exact message the wallet is asked to sign, single use, until
 * `expires_at`. Neither the nonce nor the message is a secret (anyone may see them; only the
 * wallet's key can sign them), so both are stored as they are.
 */
export interface WalletChallengeRecord {
  id: string;
  app_id: string;
  wallet_type: SignInWalletType;
  /** The address the message names: EIP-55 checksummed for ethereum, base58 for solana. */
  public_address: string;
  /** Random, alphanumeric, unique within the App: the message's `Nonce:` line. */
  nonce: string;
  /** The sign-in message, byte for byte as the wallet must sign it. */
  message: string;
  /** The user a new wallet is added to (a secret-key challenge); null to find or create the user. */
  user_id: string | null;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export type WalletChallengeConsumeFailure = 'not_found' | 'used' | 'expired';

export interface WalletChallengeRepo {
  insert(challenge: WalletChallengeRecord): Promise<void>;
  /**
   * Atomically: if the App has a challenge with `nonce` that is unused and unexpired at `now`,
   * mark it used at `now` and return it; otherwise say why (`not_found`, then `used`, then
   * `expired`). Of any number of concurrent callers, exactly one gets `ok`.
   */
  consume(
    appId: string,
    nonce: string,
    now: number,
  ): Promise<
    { ok: true; challenge: WalletChallengeRecord } | { ok: false; reason: WalletChallengeConsumeFailure }
  >;
  /** The App's challenge with this nonce, used or not, expired or not; null when none. */
  get(appId: string, nonce: string): Promise<WalletChallengeRecord | null>;
  /**
   * The challenge issued last for this address (latest `created_at`, then greatest id), used or
   * not, expired or not; null when there is none. For verifies that do not name their nonce.
   */
  latest(appId: string, walletType: SignInWalletType, address: string): Promise<WalletChallengeRecord | null>;
  /** Deletes the App's challenges that expired before `before` (used or not). */
  deleteExpired(appId: string, before: number): Promise<void>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    walletChallenges: WalletChallengeRepo;
  }
}
