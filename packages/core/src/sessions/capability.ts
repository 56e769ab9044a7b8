import { defineCapability } from '../capability.js';
import { DEFAULT_JWT_ISSUER } from './jwt.js';
import { registerSessionRoutes } from './routes.js';
import { sessionService } from './service.js';
import { signingKeys } from './signing-keys.js';

/** Sessions, their JWTs and the signing keys behind them: what every sign-in method ends in. */
export const sessionsCapability = defineCapability({
  name: 'sessions',
  needs: [],
  storage: ['sessions', 'signingKeys'],
  errors: [
    'invalid_field',
    'invalid_session_jwt',
    'missing_field',
    'secret_key_required',
    'session_not_found',
    'step_up_required',
    'user_not_found',
  ],
  service: ({ kernel, options }) =>
    sessionService(kernel, signingKeys(kernel, kernel.vault), {
      issuer: options.jwtIssuer ?? DEFAULT_JWT_ISSUER,
    }),
  routes: registerSessionRoutes,
});
