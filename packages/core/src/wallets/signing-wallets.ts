import type { WalletRecord, WalletRepo } from './repo.js';
import { requireSigningWallet } from './require-wallet.js';

/** Wallets a process keeps for its signatures; past this the copies start over. */
export const MAX_SIGNING_WALLETS = 10_000;

/**
 * The wallet a signature is made with, read from storage once per process (issue 35, point 5):
 * a wallet row is written once and never updated or deleted (no storage has a call that would),
 * so a copy held here is the row as storage has it, and a signature's only round trip is its
 * audit entry. Kept by App and wallet id, as the read is: a wallet id never answers for another
 * App. Only found, signing wallets are kept: a wallet created later is read when first used, and
 * refusals (unknown, read-only) are read again each time.
 */
export function signingWallets(wallets: WalletRepo) {
  const kept = new Map<string, WalletRecord>();
  return async (appId: string, walletId: string): Promise<WalletRecord> => {
    const key = `${appId}\u0000${walletId}`;
    const hit = kept.get(key);
    if (hit) return hit;
    const wallet = await requireSigningWallet(wallets, appId, walletId);
    if (kept.size >= MAX_SIGNING_WALLETS) kept.clear();
    // Frozen: every signature shares it, and none may change what the next one reads.
    kept.set(key, Object.freeze(wallet));
    return wallet;
  };
}
