import { defineCapability } from '../capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { registerWalletAuthRoutes } from './routes.js';
import { walletAuthService } from './service.js';

/** Sign-in with an external wallet (SIWE-style challenge and signature). */
export const walletAuthCapability = defineCapability({
  name: 'walletAuth',
  needs: [sessionsCapability],
  storage: ['walletChallenges'],
  errors: [
    'duplicate_wallet',
    'internal_error',
    'invalid_field',
    'invalid_signature',
    'invalid_wallet_address',
    'user_not_found',
    'wallet_address_mismatch',
    'wallet_belongs_to_another_user',
    'wallet_challenge_expired',
    'wallet_challenge_not_found',
    'wallet_challenge_used',
  ],
  service: ({ kernel, services }) => walletAuthService(kernel, services.sessions),
  routes: registerWalletAuthRoutes,
});
