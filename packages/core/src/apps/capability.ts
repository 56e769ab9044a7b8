import { defineCapability } from '../capability.js';
import { registerAppRoutes } from './routes.js';
import { appService } from './service.js';

/** Apps: their keys and settings. */
export const appsCapability = defineCapability({
  name: 'apps',
  needs: [],
  storage: ['apps'],
  service: ({ kernel }) => appService(kernel),
  routes: registerAppRoutes,
});
