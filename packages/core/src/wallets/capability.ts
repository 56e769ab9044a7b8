import { defineCapability } from '../capability.js';
import { walletPoliciesCapability } from '../wallet-policies/capability.js';
import { registerWalletRoutes } from './routes.js';
import { walletService } from './service.js';

/** Embedded wallets: creation, import, export and signing (under the wallet policies). */
export const walletsCapability = defineCapability({
  name: 'wallets',
  needs: [walletPoliciesCapability],
  storage: ['wallets', 'seeds'],
  errors: [
    'duplicate_wallet',
    'internal_error',
    'invalid_field',
    'invalid_mnemonic',
    'invalid_private_key',
    'invalid_recipient_key',
    'invalid_transaction',
    'missing_field',
    'user_not_found',
    'wallet_not_a_signer',
    'wallet_not_found',
    'wallet_read_only',
    'wallet_type_mismatch',
  ],
  service: ({ kernel, services }) => walletService(kernel, { signUnder: services.walletPolicies.signUnder }),
  routes: registerWalletRoutes,
});
