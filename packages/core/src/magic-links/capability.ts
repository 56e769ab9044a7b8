import { defineCapability } from '../capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { registerMagicLinkRoutes } from './routes.js';
import { magicLinkService } from './service.js';

/** Email magic links. */
export const magicLinksCapability = defineCapability({
  name: 'magicLinks',
  needs: [sessionsCapability],
  storage: ['magicLinks'],
  errors: [
    'device_fingerprint_mismatch',
    'magic_link_expired',
    'magic_link_not_found',
    'magic_link_too_many_attempts',
    'magic_link_used',
    'missing_redirect_url',
    'redirect_url_not_allowed',
  ],
  service: ({ kernel, services }) => magicLinkService(kernel, services.sessions),
  routes: registerMagicLinkRoutes,
});
