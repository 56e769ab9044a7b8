import { defineCapability } from '../capability.js';
import { registerWalletPolicyRoutes } from './routes.js';
import { walletPolicyService } from './service.js';

/** Signing policies, the daily spend they cap, and the audit trail of signatures. */
export const walletPoliciesCapability = defineCapability({
  name: 'walletPolicies',
  needs: [],
  storage: ['walletPolicies', 'walletSpends', 'walletSignatures'],
  errors: [
    'internal_error',
    'policy_limit_reached',
    'policy_not_found',
    'policy_violation',
    'wallet_not_found',
  ],
  service: ({ kernel }) => walletPolicyService(kernel),
  routes: registerWalletPolicyRoutes,
});
