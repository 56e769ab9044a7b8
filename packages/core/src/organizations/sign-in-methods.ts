import { LatchkeyError } from '../errors.js';
import { type Factor, ssoConnectionIdOf } from '../shared/factor.js';
import type { OrganizationRecord } from './repo.js';
import type { SIGN_IN_METHODS } from './schema.js';
import type { SsoConnectionLookup } from './sso-required.js';

export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

/**
 * The sign-in method a factor proves, as `allowed_sign_in_methods` names them. `sso` is an
 * `oauth` factor through this organization's own connection (`ssoConnectionId`); one through
 * another organization's connection proves none, and neither does a second factor (TOTP,
 * recovery code), which signs no one in by itself.
 */
export function signInMethodOf(factor: Factor, ssoConnectionId: string | null): SignInMethod | null {
  switch (factor.type) {
    case 'otp':
      return factor.delivery_channel === 'sms' ? 'sms_otp' : 'email_otp';
    case 'magic_link':
      return 'magic_link';
    case 'password':
      return 'password';
    case 'webauthn':
      return 'webauthn';
    case 'signature_challenge':
      return 'wallet';
    case 'oauth': {
      const connection = ssoConnectionIdOf(factor.method.provider_id);
      if (connection === undefined) return 'oauth';
      return connection === ssoConnectionId ? 'sso' : null;
    }
    case 'totp':
    case 'recovery_code':
      return null;
  }
}

/**
 * Refuses (403 `sign_in_method_not_allowed`) a session for an organization that restricts its
 * sign-in methods when none of the session's factors was made by one it allows; an empty list
 * allows any. The SSO connection is looked up only when a factor could be an `sso` one.
 */
export async function checkSignInMethods(
  organization: OrganizationRecord,
  factors: readonly Factor[],
  ssoConnectionOf: SsoConnectionLookup,
): Promise<void> {
  const allowed: readonly SignInMethod[] = organization.settings.allowed_sign_in_methods;
  if (allowed.length === 0) return;
  const viaSso = factors.some(
    (f) => f.type === 'oauth' && ssoConnectionIdOf(f.method.provider_id) !== undefined,
  );
  const connectionId =
    viaSso && allowed.includes('sso') ? await ssoConnectionOf(organization.app_id, organization.id) : null;
  const allows = (method: SignInMethod | null) => method !== null && allowed.includes(method);
  if (!factors.some((f) => allows(signInMethodOf(f, connectionId))))
    throw new LatchkeyError('sign_in_method_not_allowed');
}
