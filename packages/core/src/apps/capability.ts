import { defineCapability } from '../capability.js';
import { registerAppRoutes } from './routes.js';
import { appService } from './service.js';

/** Apps: their keys and settings. */
export const appsCapability = defineCapability({
  name: 'apps',
  needs: [],
  storage: ['apps'],
  errors: ['app_not_found', 'invalid_field', 'unknown_field'],
  service: ({ kernel }) => appService(kernel),
  routes: registerAppRoutes,
});
