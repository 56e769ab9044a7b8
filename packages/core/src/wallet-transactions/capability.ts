import { defineCapability } from '../capability.js';
import { walletsCapability } from '../wallets/capability.js';
import { walletTransactionsErrors } from './errors.js';
import { registerWalletTransactionRoutes } from './routes.js';
import { walletTransactionService } from './service.js';

/** Sending from custodial wallets: nonces, fees, broadcast and receipts (EVM chains). */
export const walletTransactionsCapability = defineCapability({
  name: 'walletTransactions',
  // The wallets' needs too: a send (EVM or Solana) signs under the wallets' policy gate itself
  // (holding the audit entry for its `signed` write), as the wallets' signing does.
  needs: [walletsCapability, ...walletsCapability.needs],
  storage: ['walletTransactions'],
  errors: walletTransactionsErrors,
  service: ({ kernel, options, services }) =>
    walletTransactionService(kernel, {
      chains: options.chains,
      signUnderHeld: services.walletPolicies.signUnderHeld,
    }),
  routes: registerWalletTransactionRoutes,
});
