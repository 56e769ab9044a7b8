import { defineCapability } from '../capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { registerTotpRoutes } from './routes.js';
import { totpService } from './service.js';

/** Authenticator-app codes (TOTP) and their recovery codes. */
export const totpsCapability = defineCapability({
  name: 'totps',
  needs: [sessionsCapability],
  storage: ['totps'],
  errors: [
    'recovery_code_invalid',
    'recovery_code_locked',
    'recovery_code_used',
    'totp_already_active',
    'totp_code_invalid',
    'totp_code_used',
    'totp_expired',
    'totp_locked',
    'totp_not_found',
    'user_not_found',
  ],
  service: ({ kernel, services }) => totpService(kernel, services.sessions),
  routes: registerTotpRoutes,
});
