import type { WalletRecord } from './repo.js';
import type { Wallet } from './schema.js';

/** The wallet as the spec's Wallet object. */
export const walletView = (w: WalletRecord): Wallet => ({
  id: w.id,
  app_id: w.app_id,
  user_id: w.user_id,
  public_address: w.public_address,
  wallet_type: w.wallet_type,
  verified: w.verified,
  is_default: w.is_default,
  is_read_only: w.is_read_only,
  is_imported: w.is_imported,
  updated_at: w.updated_at,
  created_at: w.created_at,
});
