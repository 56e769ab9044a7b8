import { defineCapability } from '../capability.js';
import { walletPoliciesErrors } from './errors.js';
import { registerWalletPolicyRoutes } from './routes.js';
import { walletPolicyService } from './service.js';

/** Signing policies, the daily spend they cap, and the audit trail of signatures. */
export const walletPoliciesCapability = defineCapability({
  name: 'walletPolicies',
  needs: [],
  storage: ['walletPolicies', 'walletSpends', 'walletSignatures'],
  errors: walletPoliciesErrors,
  service: ({ kernel }) => walletPolicyService(kernel),
  routes: registerWalletPolicyRoutes,
});
