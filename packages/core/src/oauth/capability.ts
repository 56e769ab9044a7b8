import { defineCapability } from '../capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { oauthErrors } from './errors.js';
import { registerOAuthRoutes } from './routes.js';
import { oauthService } from './service.js';

/** Sign-in through OAuth 2.0 and OpenID Connect providers, with account linking (docs/oauth.md). */
export const oauthCapability = defineCapability({
  name: 'oauth',
  needs: [sessionsCapability],
  storage: ['oauth'],
  errors: oauthErrors,
  service: ({ kernel, services, options }) =>
    oauthService(kernel, services.sessions, {
      callbackUrl: options.oauth.callbackUrl,
      allowInsecure: options.oauth.allowInsecureIssuers,
      fetch: options.oauth.fetch,
      timeoutMs: options.oauth.timeoutMs,
    }),
  routes: registerOAuthRoutes,
});
