import { defineCapability } from '../capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { webauthnErrors } from './errors.js';
import { registerWebAuthnRoutes } from './routes.js';
import { webauthnService } from './service.js';

/** Passkeys (WebAuthn registration and sign-in). */
export const webauthnCapability = defineCapability({
  name: 'webauthn',
  needs: [sessionsCapability],
  storage: ['webauthn'],
  errors: webauthnErrors,
  service: ({ kernel, services }) => webauthnService(kernel, services.sessions),
  routes: registerWebAuthnRoutes,
});
