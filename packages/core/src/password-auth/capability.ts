import { defineCapability } from '../capability.js';
import { passwordsCapability } from '../passwords/capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { passwordAuthErrors } from './errors.js';
import { createPasswordHasher } from './hashing/index.js';
import { registerPasswordAuthRoutes } from './routes.js';
import { passwordAuthService } from './service.js';

/** Sign-in by email and password: sign-up, sign-in, resets, and importing other systems' hashes. */
export const passwordAuthCapability = defineCapability({
  name: 'passwordAuth',
  needs: [sessionsCapability, passwordsCapability],
  // Reset links are rows of magicLinks' table (kind `password_reset`), which that capability owns.
  storage: ['passwords'],
  errors: passwordAuthErrors,
  service: ({ kernel, services, options }) =>
    passwordAuthService(kernel, services.sessions, services.passwords, {
      hasher: options.passwordHasher ?? createPasswordHasher(),
      breached: options.breachedPasswords,
    }),
  routes: registerPasswordAuthRoutes,
});
