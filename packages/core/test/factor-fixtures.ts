import type { Factor } from '../src/shared/factor.js';

/** The factors the sign-in-method checks read, as plain records: no storage or App behind them. */

/** A verified email, a@acme.com: the method of an email passcode, a magic link or a password. */
export const emailMethod = {
  method_id: 'email_1',
  method_type: 'email',
  email_id: 'email_1',
  email: 'a@acme.com',
  last_verified_at: 1,
} as const;

/** A proof through `provider_id`: an App's provider, or `sso:<connection id>` for an organization's SSO. */
export const oauthFactor = (provider_id: string, email: string | null = null): Factor => ({
  type: 'oauth',
  delivery_channel: 'oauth',
  method: {
    method_id: 'oauthlink_1',
    method_type: 'oauth',
    oauth_link_id: 'oauthlink_1',
    provider_id,
    provider_subject: 'sub',
    email,
    last_verified_at: 1,
  },
});
