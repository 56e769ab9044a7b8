import { defineCapability } from '../capability.js';
import { registerPasswordRoutes } from './routes.js';
import { passwordService } from './service.js';

/** Password strength checks (no table of its own). */
export const passwordsCapability = defineCapability({
  name: 'passwords',
  needs: [],
  storage: [],
  errors: ['internal_error', 'invalid_field', 'user_not_found'],
  service: ({ kernel }) => passwordService(kernel),
  routes: registerPasswordRoutes,
});
