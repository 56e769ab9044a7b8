import { defineCapability } from '../capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { walletAuthErrors } from './errors.js';
import { registerWalletAuthRoutes } from './routes.js';
import { walletAuthService } from './service.js';

/** Sign-in with an external wallet (SIWE-style challenge and signature). */
export const walletAuthCapability = defineCapability({
  name: 'walletAuth',
  needs: [sessionsCapability],
  storage: ['walletChallenges'],
  errors: walletAuthErrors,
  service: ({ kernel, services }) => walletAuthService(kernel, services.sessions),
  routes: registerWalletAuthRoutes,
});
