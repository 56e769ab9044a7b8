import { describe, expect, it } from 'vitest';
import type { OrganizationRecord } from '../src/organizations/repo.js';
import { checkSignInMethods, signInMethodOf } from '../src/organizations/sign-in-methods.js';
import type { Factor } from '../src/shared/factor.js';
import { emailMethod, oauthFactor } from './factor-fixtures.js';

const email = emailMethod;
const totp = { method_id: 'totp_1', method_type: 'totp', totp_id: 'totp_1', last_verified_at: 1 } as const;
const oauth = oauthFactor;
const factors: Record<string, Factor> = {
  sms_otp: {
    type: 'otp',
    delivery_channel: 'sms',
    method: {
      method_id: 'phone_1',
      method_type: 'phone_number',
      phone_number_id: 'phone_1',
      phone_number: '+15005550006',
      last_verified_at: 1,
    },
  },
  email_otp: { type: 'otp', delivery_channel: 'email', method: email },
  magic_link: { type: 'magic_link', delivery_channel: 'email', method: email },
  password: { type: 'password', delivery_channel: 'knowledge', method: email },
  webauthn: {
    type: 'webauthn',
    delivery_channel: 'webauthn',
    method: {
      method_id: 'cred_1',
      method_type: 'webauthn_credential',
      webauthn_credential_id: 'cred_1',
      last_verified_at: 1,
    },
  },
  wallet: {
    type: 'signature_challenge',
    delivery_channel: 'crypto_wallet',
    method: {
      method_id: 'wallet_1',
      method_type: 'wallet',
      wallet_id: 'wallet_1',
      wallet_type: 'ethereum',
      public_address: '0x0',
      last_verified_at: 1,
    },
  },
  oauth: oauth('google'),
  sso: oauth('sso:ssoconn_A'),
};
const totpFactor: Factor = { type: 'totp', delivery_channel: 'authenticator_app', method: totp };
const recoveryFactor: Factor = { type: 'recovery_code', delivery_channel: 'recovery_code', method: totp };

const organization = (allowed: string[]) =>
  ({
    id: 'org_1',
    app_id: 'app_1',
    settings: { allowed_sign_in_methods: allowed },
  }) as unknown as OrganizationRecord;

describe('allowed_sign_in_methods', () => {
  it('names the method each kind of factor proves', () => {
    for (const [method, factor] of Object.entries(factors))
      expect(signInMethodOf(factor, 'ssoconn_A'), method).toBe(method);
    // A second factor signs no one in; another organization's SSO is not this one's.
    expect(signInMethodOf(totpFactor, 'ssoconn_A')).toBeNull();
    expect(signInMethodOf(recoveryFactor, 'ssoconn_A')).toBeNull();
    expect(signInMethodOf(oauth('sso:ssoconn_B'), 'ssoconn_A')).toBeNull();
    expect(signInMethodOf(oauth('sso:ssoconn_A'), null)).toBeNull();
  });

  it('passes a session with one allowed factor, refuses one with none, and asks for the connection only when needed', async () => {
    let lookups = 0;
    const connectionOf = async () => {
      lookups += 1;
      return 'ssoconn_A';
    };
    const refused = { errorType: 'sign_in_method_not_allowed', status: 403 };
    await expect(checkSignInMethods(organization([]), [totpFactor], connectionOf)).resolves.toBeUndefined();
    await expect(
      checkSignInMethods(organization(['email_otp']), [totpFactor, factors.email_otp!], connectionOf),
    ).resolves.toBeUndefined();
    await expect(
      checkSignInMethods(organization(['oauth']), [factors.email_otp!, totpFactor], connectionOf),
    ).rejects.toMatchObject(refused);
    // An App provider's OAuth is not SSO, nor SSO the App's OAuth.
    await expect(
      checkSignInMethods(organization(['sso']), [factors.oauth!], connectionOf),
    ).rejects.toMatchObject(refused);
    await expect(
      checkSignInMethods(organization(['oauth']), [factors.sso!], connectionOf),
    ).rejects.toMatchObject(refused);
    expect(lookups).toBe(0);
    await expect(
      checkSignInMethods(organization(['sso']), [factors.sso!], connectionOf),
    ).resolves.toBeUndefined();
    await expect(
      checkSignInMethods(organization(['sso']), [oauth('sso:ssoconn_B')], connectionOf),
    ).rejects.toMatchObject(refused);
    expect(lookups).toBe(2);
  });
});
