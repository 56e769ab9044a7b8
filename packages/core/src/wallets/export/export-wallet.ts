import { chainModules, wipe } from '../../chains/index.js';
import type { Kernel } from '../../kernel.js';
import type { WalletCustody } from '../custody.js';
import { requireWallet } from '../require-wallet.js';
import { encryptForRecipient } from './encrypt-for-recipient.js';
import { decodeRecipientKey } from './recipient-key.js';

/** The wallet's private key, encrypted to the caller's public key: never in the clear. */
export async function exportWallet(
  k: Kernel,
  custody: WalletCustody,
  appId: string,
  walletId: string,
  recipientPublicKey: string,
) {
  const wallet = await requireWallet(k.storage.wallets, appId, walletId);
  const recipient = decodeRecipientKey(recipientPublicKey);
  const exported = await custody.withKey(wallet, (key) => {
    const plaintext = new TextEncoder().encode(
      chainModules[wallet.wallet_type].encodePrivateKey(key.privateKey, { network: wallet.network }),
    );
    try {
      return {
        wallet_id: wallet.id,
        format: 'private_key' as const,
        ...encryptForRecipient(plaintext, recipient, { random: k.random }),
      };
    } finally {
      wipe(plaintext);
    }
  });
  // Recorded before the key leaves: an export the App cannot see never happens.
  await k.emit({
    app_id: appId,
    type: 'wallet.exported',
    data: { user_id: wallet.user_id, wallet_id: wallet.id, wallet_type: wallet.wallet_type },
  });
  return exported;
}
