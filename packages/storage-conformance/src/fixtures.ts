import { type AppRecord, appSettingsSchema, type ContactRecord, type UserRecord } from '@latchkey/core';

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
