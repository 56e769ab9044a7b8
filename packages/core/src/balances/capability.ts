import { defineCapability } from '../capability.js';
import { chainClients } from './chain-clients.js';
import { balancesErrors } from './errors.js';
import { registerBalanceRoutes } from './routes.js';
import { balanceService } from './service.js';

/** Wallet balances read from the chains (no table of its own: it reads wallets). */
export const balancesCapability = defineCapability({
  name: 'balances',
  needs: [],
  storage: [],
  errors: balancesErrors,
  service: ({ kernel, options }) => balanceService(kernel, chainClients(options.chains, kernel.clock)),
  routes: registerBalanceRoutes,
});
