import { defineCapability } from '../capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { otpsErrors } from './errors.js';
import { registerOtpRoutes } from './routes.js';
import { otpService } from './service.js';

/** One-time passcodes by SMS and email. */
export const otpsCapability = defineCapability({
  name: 'otps',
  needs: [sessionsCapability],
  storage: ['otps'],
  errors: otpsErrors,
  service: ({ kernel, services }) => otpService(kernel, services.sessions),
  routes: registerOtpRoutes,
});
