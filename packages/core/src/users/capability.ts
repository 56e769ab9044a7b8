import { defineCapability } from '../capability.js';
import { registerUserRoutes } from './routes.js';
import { userService } from './service.js';

/** Users and their email addresses and phone numbers. */
export const usersCapability = defineCapability({
  name: 'users',
  needs: [],
  storage: ['users', 'emails', 'phoneNumbers'],
  service: ({ kernel }) => userService(kernel),
  routes: registerUserRoutes,
});
