import { defineCapability } from '../capability.js';
import { walletPoliciesCapability } from '../wallet-policies/capability.js';
import { walletsErrors } from './errors.js';
import { registerWalletRoutes } from './routes.js';
import { walletService } from './service.js';

/** Embedded wallets: creation, import, export and signing (under the wallet policies). */
export const walletsCapability = defineCapability({
  name: 'wallets',
  needs: [walletPoliciesCapability],
  storage: ['wallets', 'seeds'],
  errors: walletsErrors,
  service: ({ kernel, services }) => walletService(kernel, { signUnder: services.walletPolicies.signUnder }),
  routes: registerWalletRoutes,
});
