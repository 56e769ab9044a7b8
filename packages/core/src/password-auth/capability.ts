import { defineCapability } from '../capability.js';
import { passwordsCapability } from '../passwords/capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { createPasswordHasher } from './hashing/index.js';
import { registerPasswordAuthRoutes } from './routes.js';
import { passwordAuthService } from './service.js';

/** Sign-in by email and password: sign-up, sign-in, resets, and importing other systems' hashes. */
export const passwordAuthCapability = defineCapability({
  name: 'passwordAuth',
  needs: [sessionsCapability, passwordsCapability],
  // Reset links are rows of magicLinks' table (kind `password_reset`), which that capability owns.
  storage: ['passwords'],
  errors: [
    'breached_password',
    'duplicate_email',
    'internal_error',
    'invalid_field',
    'invalid_credentials',
    'invalid_email',
    'missing_redirect_url',
    'password_locked',
    'password_reset_expired',
    'password_reset_not_found',
    'password_reset_used',
    'rate_limited',
    'reauthentication_required',
    'redirect_url_not_allowed',
    'secret_key_required',
    'session_not_found',
    'weak_password',
  ],
  service: ({ kernel, services, options }) =>
    passwordAuthService(kernel, services.sessions, services.passwords, {
      hasher: options.passwordHasher ?? createPasswordHasher(),
      breached: options.breachedPasswords,
    }),
  routes: registerPasswordAuthRoutes,
});
