import { defineCapability } from '../capability.js';
import { registerPasswordRoutes } from './routes.js';
import { passwordService } from './service.js';

/** Password strength checks (no table of its own). */
export const passwordsCapability = defineCapability({
  name: 'passwords',
  needs: [],
  storage: [],
  service: ({ kernel }) => passwordService(kernel),
  routes: registerPasswordRoutes,
});
