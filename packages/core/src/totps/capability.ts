import { defineCapability } from '../capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { totpsErrors } from './errors.js';
import { registerTotpRoutes } from './routes.js';
import { totpService } from './service.js';

/** Authenticator-app codes (TOTP) and their recovery codes. */
export const totpsCapability = defineCapability({
  name: 'totps',
  needs: [sessionsCapability],
  storage: ['totps'],
  errors: totpsErrors,
  service: ({ kernel, services }) => totpService(kernel, services.sessions),
  routes: registerTotpRoutes,
});
