import { defineCapability } from '../capability.js';
import { walletsCapability } from '../wallets/capability.js';
import { walletTransactionsErrors } from './errors.js';
import { registerWalletTransactionRoutes } from './routes.js';
import { walletTransactionService } from './service.js';

/** Sending from custodial wallets: nonces, fees, broadcast and receipts (EVM chains). */
export const walletTransactionsCapability = defineCapability({
  name: 'walletTransactions',
  needs: [walletsCapability],
  storage: ['walletTransactions'],
  errors: walletTransactionsErrors,
  service: ({ kernel, options, services }) =>
    walletTransactionService(kernel, {
      chains: options.chains,
      signTransaction: services.wallets.signTransaction,
    }),
  routes: registerWalletTransactionRoutes,
});
