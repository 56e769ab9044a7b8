import { defineCapability } from '../capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { magicLinksErrors } from './errors.js';
import { registerMagicLinkRoutes } from './routes.js';
import { magicLinkService } from './service.js';

/** Email magic links. */
export const magicLinksCapability = defineCapability({
  name: 'magicLinks',
  needs: [sessionsCapability],
  storage: ['magicLinks'],
  errors: magicLinksErrors,
  service: ({ kernel, services }) => magicLinkService(kernel, services.sessions),
  routes: registerMagicLinkRoutes,
});
