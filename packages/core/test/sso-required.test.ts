import { describe, expect, it } from 'vitest';
import type { Factor } from '../src/shared/factor.js';
import { requireSso, ssoRequirementMet } from '../src/sso/required.js';

const settings = (sso_required: boolean) => ({
  settings: {
    who_can_invite: 'admins' as const,
    default_role: 'member',
    allowed_sign_in_methods: [],
    join_by_domain: false,
    sso_required,
  },
});
const oauthFactor = (provider_id: string): Factor => ({
  type: 'oauth',
  delivery_channel: 'oauth',
  method: {
    method_id: 'oauthlink_1',
    method_type: 'oauth',
    oauth_link_id: 'oauthlink_1',
    provider_id,
    provider_subject: 'sub',
    email: 'a@acme.com',
    last_verified_at: 1,
  },
});
const emailFactor: Factor = {
  type: 'magic_link',
  delivery_channel: 'email',
  method: {
    method_id: 'email_1',
    method_type: 'email',
    email_id: 'email_1',
    email: 'a@acme.com',
    last_verified_at: 1,
  },
};

describe('sso_required', () => {
  const connection = { id: 'ssoconn_A' };
  it('is met by any session when off', () => {
    expect(ssoRequirementMet(settings(false), null, [emailFactor])).toBe(true);
  });
  it('when on, only by a proof through the organization’s own connection', () => {
    expect(ssoRequirementMet(settings(true), connection, [emailFactor, oauthFactor('sso:ssoconn_A')])).toBe(
      true,
    );
    expect(ssoRequirementMet(settings(true), connection, [emailFactor])).toBe(false);
    // Another organization's connection, or the App's own OAuth provider, is not this one's SSO.
    expect(ssoRequirementMet(settings(true), connection, [oauthFactor('sso:ssoconn_B')])).toBe(false);
    expect(ssoRequirementMet(settings(true), connection, [oauthFactor('google')])).toBe(false);
    expect(ssoRequirementMet(settings(true), null, [oauthFactor('sso:ssoconn_A')])).toBe(false);
    expect(() => requireSso(settings(true), connection, [emailFactor])).toThrow(
      expect.objectContaining({ errorType: 'sso_required', status: 403 }),
    );
  });
});
