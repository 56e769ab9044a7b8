import { type ClientCore, sessionFields } from './client.js';
import type { BodyOf } from './transport.js';

type Omitted = 'session_token' | 'session_jwt' | 'session_expires_in';

/** One-time passcodes by email and SMS: send, then verify the code the user typed. */
export const otps = (core: ClientCore) => ({
  email: {
    send: (body: BodyOf<'post /v1/auth/otps/email/send'>) =>
      core.call('post /v1/auth/otps/email/send', { body }),
    loginOrCreate: (body: BodyOf<'post /v1/auth/otps/email/login_or_create'>) =>
      core.call('post /v1/auth/otps/email/login_or_create', { body }),
  },
  sms: {
    send: (body: BodyOf<'post /v1/auth/otps/sms/send'>) => core.call('post /v1/auth/otps/sms/send', { body }),
    loginOrCreate: (body: BodyOf<'post /v1/auth/otps/sms/login_or_create'>) =>
      core.call('post /v1/auth/otps/sms/login_or_create', { body }),
  },
  /** Checks the code against the `method_id` that send answered with, and signs in. */
  verify: async (body: Omit<BodyOf<'post /v1/auth/otps/verify'>, Omitted>) =>
    core.session.accept(
      await core.call('post /v1/auth/otps/verify', { body: { ...sessionFields(core), ...body } }),
    ),
});
