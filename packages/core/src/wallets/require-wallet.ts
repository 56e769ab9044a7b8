import { LatchkeyError } from '../errors.js';
import type { WalletRecord, WalletRepo } from './repo.js';

export async function requireWallet(
  wallets: WalletRepo,
  appId: string,
  walletId: string,
): Promise<WalletRecord> {
  const wallet = await wallets.get(appId, walletId);
  if (!wallet) throw new LatchkeyError('wallet_not_found');
  return wallet;
}

/** A wallet whose key Latchkey holds: read-only and sign-in (external) wallets are refused. */
export async function requireSigningWallet(
  wallets: WalletRepo,
  appId: string,
  walletId: string,
): Promise<WalletRecord> {
  const wallet = await requireWallet(wallets, appId, walletId);
  if (wallet.is_read_only || wallet.key_source === 'external') throw new LatchkeyError('wallet_read_only');
  return wallet;
}
