import { defineCapability } from '../capability.js';
import { registerUserRoutes } from './routes.js';
import { userService } from './service.js';

/** Users and their email addresses and phone numbers. */
export const usersCapability = defineCapability({
  name: 'users',
  needs: [],
  storage: ['users', 'emails', 'phoneNumbers'],
  errors: [
    'duplicate_email',
    'duplicate_phone_number',
    'email_belongs_to_another_user',
    'email_not_found',
    'internal_error',
    'invalid_email',
    'invalid_phone_number',
    'phone_number_belongs_to_another_user',
    'phone_number_not_found',
    'user_not_found',
  ],
  service: ({ kernel }) => userService(kernel),
  routes: registerUserRoutes,
});
