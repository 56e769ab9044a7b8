import { defineCapability } from '../capability.js';
import { DEFAULT_JWT_ISSUER } from './jwt.js';
import { revokedSessions } from './revoked-sessions.js';
import { registerSessionRoutes } from './routes.js';
import { sessionService } from './service.js';
import { signingKeys } from './signing-keys.js';

/** Sessions, their JWTs and the signing keys behind them: what every sign-in method ends in. */
export const sessionsCapability = defineCapability({
  name: 'sessions',
  needs: [],
  storage: ['sessions', 'signingKeys'],
  service: ({ kernel, options, hooks }) => {
    const revoked = revokedSessions({
      channel: options.revocationChannel ?? kernel.storage.sessionRevocations,
      revokedSince: kernel.storage.sessions.revokedSince?.bind(kernel.storage.sessions),
      now: kernel.now,
      logger: kernel.logger,
    });
    // Every revocation this process writes (a logout, revoke_all, a password change) is refused
    // here at once, before any channel brings it back.
    hooks.on('session.revoked', (event) => {
      const { session_id } = event.data as { session_id: string };
      revoked.revokedHere([{ app_id: event.app_id, session_id, revoked_at: event.created_at }]);
    });
    return sessionService(kernel, signingKeys(kernel, kernel.vault), {
      issuer: options.jwtIssuer ?? DEFAULT_JWT_ISSUER,
      revoked,
    });
  },
  routes: registerSessionRoutes,
});
