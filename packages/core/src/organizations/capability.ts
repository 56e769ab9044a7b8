import { defineCapability } from '../capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { organizationsErrors } from './errors.js';
import { registerOrganizationRoutes } from './routes.js';
import { organizationService } from './service.js';

/** Organizations of an App's users, their members and roles (docs/organizations.md). */
export const organizationsCapability = defineCapability({
  name: 'organizations',
  needs: [sessionsCapability],
  storage: ['organizations'],
  errors: organizationsErrors,
  service: ({ kernel, services }) => organizationService(kernel, services.sessions),
  routes: registerOrganizationRoutes,
});
