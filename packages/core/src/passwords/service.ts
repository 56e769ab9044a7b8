import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import { estimatePassword, loadEstimator, type PasswordEstimate } from './estimator.js';
import { MAX_PASSWORD_LENGTH, type StrengthCheckRequest, type StrengthCheckResponse } from './schema.js';
import { distinctInputs, emailInputs, nameInputs } from './user-inputs.js';

export type PasswordService = ReturnType<typeof passwordService>;

export function passwordService(k: Kernel) {
  /** The words of the person choosing the password, which it should not be built from. */
  async function userInputs(appId: string, input: StrengthCheckRequest): Promise<string[]> {
    const inputs = input.email === undefined ? [] : emailInputs(input.email);
    if (input.user_id !== undefined) {
      const user = await k.storage.users.get(appId, input.user_id);
      if (!user) throw new LatchkeyError('user_not_found');
      const [emails, phones] = await Promise.all([
        k.storage.emails.listByUser(appId, user.id),
        k.storage.phoneNumbers.listByUser(appId, user.id),
      ]);
      inputs.push(
        ...nameInputs(user.name),
        ...emails.flatMap((e) => emailInputs(e.address)),
        ...phones.flatMap((p) => [p.address, p.address.replace(/^\+/, '')]),
      );
    }
    return distinctInputs(inputs);
  }

  return {
    /**
     * Scores a password with zxcvbn. The password is neither stored nor logged, and no error
     * carries it: a failure inside the estimator surfaces as a bare `internal_error`.
     */
    async strengthCheck(appId: string, input: StrengthCheckRequest): Promise<StrengthCheckResponse> {
      if (input.password.length === 0 || input.password.length > MAX_PASSWORD_LENGTH) {
        throw new LatchkeyError(
          'invalid_field',
          `A password is 1 to ${MAX_PASSWORD_LENGTH} characters long.`,
          { field: 'password' },
        );
      }
      const app = await k.app(appId);
      const words = await userInputs(appId, input);
      let estimate: PasswordEstimate;
      try {
        estimate = await estimatePassword(input.password, words);
      } catch {
        throw new LatchkeyError('internal_error', 'The password could not be checked.');
      }
      return {
        score: estimate.score,
        crack_time: estimate.crack_time,
        crack_time_display: estimate.crack_time_display,
        valid_password: estimate.score >= app.settings.passwords.min_score,
        feedback: estimate.feedback,
      };
    },

    /** Loads the dictionaries now (about a quarter of a second) instead of on the first check. */
    preload: async (): Promise<void> => {
      await loadEstimator();
    },
  };
}
