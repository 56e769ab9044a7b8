import { type ClientCore, sessionFields } from './client.js';
import type { BodyOf } from './transport.js';

type SessionKeys = 'session_token' | 'session_jwt' | 'session_expires_in';

/**
 * Email and password: sign-up (where the App allows it with the public token), sign-in, and the
 * three resets. Each call that proves the user keeps the session it answers with.
 */
export const passwords = (core: ClientCore) => ({
  /** Scores a password (zxcvbn) before it is sent for sign-up. */
  strength: (body: BodyOf<'post /v1/auth/passwords/strength_check'>) =>
    core.call('post /v1/auth/passwords/strength_check', { body }),
  create: async (body: Omit<BodyOf<'post /v1/auth/passwords/create'>, SessionKeys>) =>
    core.session.accept(
      await core.call('post /v1/auth/passwords/create', { body: { ...sessionFields(core), ...body } }),
    ),
  authenticate: async (body: Omit<BodyOf<'post /v1/auth/passwords/authenticate'>, SessionKeys>) =>
    core.session.accept(
      await core.call('post /v1/auth/passwords/authenticate', { body: { ...sessionFields(core), ...body } }),
    ),
  email: {
    /** Emails a reset link; the same answer whether or not a user has the address. */
    resetStart: (body: BodyOf<'post /v1/auth/passwords/email/reset/start'>) =>
      core.call('post /v1/auth/passwords/email/reset/start', { body }),
    /** Sets the new password with the `token` of the link the user opened. */
    reset: async (body: Omit<BodyOf<'post /v1/auth/passwords/email/reset'>, SessionKeys>) =>
      core.session.accept(
        await core.call('post /v1/auth/passwords/email/reset', { body: { ...sessionFields(core), ...body } }),
      ),
  },
  existingPassword: {
    reset: async (body: Omit<BodyOf<'post /v1/auth/passwords/existing_password/reset'>, SessionKeys>) =>
      core.session.accept(
        await core.call('post /v1/auth/passwords/existing_password/reset', {
          body: { ...sessionFields(core), ...body },
        }),
      ),
  },
  session: {
    /** Sets the password of the signed-in user (whose last sign-in is recent); the session stays. */
    reset: async (password: string) =>
      core.session.accept(
        await core.call('post /v1/auth/passwords/session/reset', {
          body: { ...core.session.credential(), password },
        }),
      ),
  },
});
