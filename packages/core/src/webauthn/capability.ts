import { defineCapability } from '../capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { registerWebAuthnRoutes } from './routes.js';
import { webauthnService } from './service.js';

/** Passkeys (WebAuthn registration and sign-in). */
export const webauthnCapability = defineCapability({
  name: 'webauthn',
  needs: [sessionsCapability],
  storage: ['webauthn'],
  errors: [
    'duplicate_webauthn_credential',
    'invalid_field',
    'invalid_webauthn_credential',
    'missing_field',
    'secret_key_required',
    'user_not_found',
    'webauthn_challenge_expired',
    'webauthn_challenge_not_found',
    'webauthn_challenge_used',
    'webauthn_counter_regression',
    'webauthn_credential_not_allowed',
    'webauthn_credential_not_found',
    'webauthn_domain_not_allowed',
    'webauthn_origin_mismatch',
    'webauthn_rp_id_mismatch',
    'webauthn_verification_failed',
  ],
  service: ({ kernel, services }) => webauthnService(kernel, services.sessions),
  routes: registerWebAuthnRoutes,
});
