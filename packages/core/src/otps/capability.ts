import { defineCapability } from '../capability.js';
import { sessionsCapability } from '../sessions/capability.js';
import { registerOtpRoutes } from './routes.js';
import { otpService } from './service.js';

/** One-time passcodes by SMS and email. */
export const otpsCapability = defineCapability({
  name: 'otps',
  needs: [sessionsCapability],
  storage: ['otps'],
  errors: [
    'device_fingerprint_mismatch',
    'otp_code_expired',
    'otp_code_invalid',
    'otp_code_not_found',
    'otp_code_too_many_attempts',
    'otp_code_used',
    'phone_number_type_not_allowed',
    'sms_country_not_allowed',
    'user_not_found',
  ],
  service: ({ kernel, services }) => otpService(kernel, services.sessions),
  routes: registerOtpRoutes,
});
