import type { Storage } from '@latchkey/core';
import {
  type AppRecord,
  appSettingsSchema,
  type ContactRecord,
  type MagicLinkRecord,
  type OtpRecord,
  type SessionRecord,
  type SigningKeyRecord,
  type UserRecord,
} from '@latchkey/core';

let counter = 0;
/** Unique per call and per run, so tests never see each other's rows in a shared database. */
export const uid = (prefix: string) =>
  `${prefix}_t${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 10)}`;

export const NOW = 1_800_000_000;

export function makeApp(over: Partial<AppRecord> = {}): AppRecord {
  return {
    id: uid('app'),
    name: 'Test App',
    secret_key_hash: uid('skh'),
    public_token_hash: uid('pkh'),
    previous_secret_key_hash: null,
    previous_secret_key_expires_at: null,
    settings: appSettingsSchema.parse({}),
    created_at: NOW,
    updated_at: NOW,
    ...over,
  };
}

export function makeUser(appId: string, over: Partial<UserRecord> = {}): UserRecord {
  return {
    id: uid('user'),
    app_id: appId,
    name: { first_name: 'Ada', last_name: 'Lovelace' },
    status: 'active',
    created_at: NOW,
    updated_at: NOW,
    ...over,
  };
}

export function makeContact(appId: string, userId: string, over: Partial<ContactRecord> = {}): ContactRecord {
  return {
    id: uid('email'),
    app_id: appId,
    user_id: userId,
    address: `${uid('a')}@example.com`,
    verified_at: null,
    created_at: NOW,
    ...over,
  };
}

export function makeOtp(
  appId: string,
  userId: string,
  methodId: string,
  over: Partial<OtpRecord> = {},
): OtpRecord {
  return {
    id: uid('otp'),
    app_id: appId,
    method_id: methodId,
    user_id: userId,
    code_hash: uid('hash'),
    attempts: 0,
    expires_at: NOW + 600,
    used_at: null,
    device_fingerprint: { ip: '203.0.113.7', user_agent: 'Test/1.0' },
    created_at: NOW,
    ...over,
  };
}

export function makeSession(appId: string, userId: string, over: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: uid('session'),
    app_id: appId,
    user_id: userId,
    token_hash: uid('tokenhash'),
    started_at: NOW,
    expires_at: NOW + 3600,
    last_active_at: NOW,
    factors: [
      {
        type: 'otp',
        delivery_channel: 'email',
        method: {
          method_id: 'email_x',
          method_type: 'email',
          email_id: 'email_x',
          email: 'a@b.co',
          last_verified_at: NOW,
        },
      },
    ],
    device_fingerprint: null,
    revoked_at: null,
    created_at: NOW,
    updated_at: NOW,
    ...over,
  };
}

export function makeSigningKey(appId: string, over: Partial<SigningKeyRecord> = {}): SigningKeyRecord {
  return {
    id: uid('key'),
    app_id: appId,
    alg: 'ES256',
    public_jwk: { kty: 'EC', crv: 'P-256', x: uid('x'), y: uid('y') },
    sealed_private_key: uid('sealed'),
    created_at: NOW,
    retired_at: null,
    ...over,
  };
}

export function makeMagicLink(
  appId: string,
  userId: string,
  emailId: string,
  over: Partial<MagicLinkRecord> = {},
): MagicLinkRecord {
  return {
    id: uid('magic'),
    app_id: appId,
    user_id: userId,
    email_id: emailId,
    token_hash: uid('linkhash'),
    kind: 'login',
    expires_at: NOW + 3600,
    used_at: null,
    attempts: 0,
    device_fingerprint: null,
    created_at: NOW,
    ...over,
  };
}

/** A fresh App with one user in `s`: the starting point of most cases. */
export async function appWithUser(s: Storage) {
  const app = makeApp();
  await s.apps.insert(app);
  const user = makeUser(app.id);
  await s.users.insert(user);
  return { s, app, user };
}
