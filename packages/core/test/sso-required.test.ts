import { describe, expect, it } from 'vitest';
import type { Factor } from '../src/shared/factor.js';
import { requireSso, ssoRequirementMet } from '../src/sso/required.js';
import { emailMethod, oauthFactor } from './factor-fixtures.js';

const settings = (sso_required: boolean) => ({
  settings: {
    who_can_invite: 'admins' as const,
    default_role: 'member',
    allowed_sign_in_methods: [],
    join_by_domain: false,
    sso_required,
  },
});
/** An OAuth proof carrying the email the provider gave. */
const viaOAuth = (provider_id: string) => oauthFactor(provider_id, 'a@acme.com');
const emailFactor: Factor = { type: 'magic_link', delivery_channel: 'email', method: emailMethod };

describe('sso_required', () => {
  const connection = { id: 'ssoconn_A' };
  it('is met by any session when off', () => {
    expect(ssoRequirementMet(settings(false), null, [emailFactor])).toBe(true);
  });
  it('when on, only by a proof through the organization’s own connection', () => {
    expect(ssoRequirementMet(settings(true), connection, [emailFactor, viaOAuth('sso:ssoconn_A')])).toBe(
      true,
    );
    expect(ssoRequirementMet(settings(true), connection, [emailFactor])).toBe(false);
    // Another organization's connection, or the App's own OAuth provider, is not this one's SSO.
    expect(ssoRequirementMet(settings(true), connection, [viaOAuth('sso:ssoconn_B')])).toBe(false);
    expect(ssoRequirementMet(settings(true), connection, [viaOAuth('google')])).toBe(false);
    expect(ssoRequirementMet(settings(true), null, [viaOAuth('sso:ssoconn_A')])).toBe(false);
    expect(() => requireSso(settings(true), connection, [emailFactor])).toThrow(
      expect.objectContaining({ errorType: 'sso_required', status: 403 }),
    );
  });
});
