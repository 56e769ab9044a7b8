import { defineCapability } from '../capability.js';
import { chainClients } from './chain-clients.js';
import { registerBalanceRoutes } from './routes.js';
import { balanceService } from './service.js';

/** Wallet balances read from the chains (no table of its own: it reads wallets). */
export const balancesCapability = defineCapability({
  name: 'balances',
  needs: [],
  storage: [],
  errors: [
    'chain_invalid_response',
    'chain_not_configured',
    'chain_timeout',
    'chain_unavailable',
    'internal_error',
    'token_not_on_network',
    'token_wallet_type_mismatch',
    'wallet_not_found',
  ],
  service: ({ kernel, options }) => balanceService(kernel, chainClients(options.chains, kernel.clock)),
  routes: registerBalanceRoutes,
});
