import { defineCapability } from '../capability.js';
import { walletsCapability } from '../wallets/capability.js';
import { registerWalletTransactionRoutes } from './routes.js';
import { walletTransactionService } from './service.js';

/** Sending from custodial wallets: nonces, fees, broadcast and receipts (EVM chains). */
export const walletTransactionsCapability = defineCapability({
  name: 'walletTransactions',
  needs: [walletsCapability],
  storage: ['walletTransactions'],
  errors: [
    'chain_invalid_response',
    'chain_not_configured',
    'chain_timeout',
    'chain_unavailable',
    'insufficient_funds',
    'internal_error',
    'invalid_field',
    'nonce_conflict',
    'policy_violation',
    'transaction_not_found',
    'transaction_not_replaceable',
    'transaction_rejected',
    'transaction_reverted',
    'wallet_not_found',
    'wallet_read_only',
    'wallet_type_mismatch',
  ],
  service: ({ kernel, options, services }) =>
    walletTransactionService(kernel, {
      chains: options.chains,
      signTransaction: services.wallets.signTransaction,
    }),
  routes: registerWalletTransactionRoutes,
});
