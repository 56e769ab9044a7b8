import { defineCapability } from '../capability.js';
import { organizationsCapability } from '../organizations/capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { ssoErrors } from './errors.js';
import { registerSsoRoutes } from './routes.js';
import { ssoService } from './service.js';

/** Single sign-on per organization through OpenID Connect (docs/organizations.md, "Single sign-on"). */
export const ssoCapability = defineCapability({
  name: 'sso',
  needs: [sessionsCapability, organizationsCapability],
  storage: ['sso'],
  errors: ssoErrors,
  service: ({ kernel, services, options }) =>
    ssoService(kernel, services.sessions, services.organizations, {
      callbackUrl: options.sso.callbackUrl,
      allowInsecure: options.oauth.allowInsecureIssuers,
      fetch: options.oauth.fetch,
      timeoutMs: options.oauth.timeoutMs,
    }),
  routes: registerSsoRoutes,
});
