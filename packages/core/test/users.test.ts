import { createLatchkey } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { describe, expect, it } from 'vitest';
import { expectErrorShape, TEST_SECRET, testApp } from './helpers.js';

describe('users over HTTP', () => {
  it('creates a user with a normalised email and an E.164 phone number, and reads it back', async () => {
    const t = await testApp();
    const res = await t.call('POST', '/v1/auth/users', {
      email: '  Ada.Lovelace@Example.COM ',
      phone_number: '+44 20 7946 0958',
      name: { first_name: 'Ada', last_name: 'Lovelace' },
    });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toMatch(/^user_[0-9a-z]{26}$/);
    expect(res.body.email_id).toMatch(/^email_/);
    expect(res.body.phone_number_id).toMatch(/^phone_/);
    expect(res.body.user).toMatchObject({
      user_id: res.body.user_id,
      status: 'active',
      name: { first_name: 'Ada', middle_name: '', last_name: 'Lovelace' },
      emails: [{ email_id: res.body.email_id, email: 'ada.lovelace@example.com', verified: false }],
      phone_numbers: [
        { phone_number_id: res.body.phone_number_id, phone_number: '+442079460958', verified: false },
      ],
      webauthn_credentials: [],
      totps: [],
      wallets: [],
    });
    expect(Number.isInteger(res.body.user.created_at)).toBe(true);
    const read = await t.call('GET', `/v1/auth/users/${res.body.user_id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body.user);
  });

  it('creates a user with neither email nor phone (a passkey-only user)', async () => {
    const t = await testApp();
    const res = await t.call('POST', '/v1/auth/users', {});
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ emails: [], phone_numbers: [] });
  });

  it('refuses a second user with the same email or phone in one App, without a half-written user', async () => {
    const t = await testApp();
    await t.call('POST', '/v1/auth/users', { email: 'dup@example.com', phone_number: '+14155550123' });
    const dupEmail = await t.call('POST', '/v1/auth/users', { email: 'DUP@example.com' });
    expect(dupEmail.status).toBe(409);
    expect(expectErrorShape(dupEmail).error_type).toBe('duplicate_email');
    // The email is new, the phone is taken: the transaction must drop the user and the email.
    const dupPhone = await t.call('POST', '/v1/auth/users', {
      email: 'fresh@example.com',
      phone_number: '+1 415 555 0123',
    });
    expect(dupPhone.status).toBe(409);
    expect(expectErrorShape(dupPhone).error_type).toBe('duplicate_phone_number');
    expect(await t.latchkey.storage.emails.findByAddress(t.app_id, 'fresh@example.com')).toBeNull();
    const retry = await t.call('POST', '/v1/auth/users', { email: 'fresh@example.com' });
    expect(retry.status).toBe(200);
  });

  it('refuses invalid emails and phone numbers with their own error types', async () => {
    const t = await testApp();
    for (const email of ['not-an-email', 'a@', '@b.com', 'a b@c.com', `${'a'.repeat(250)}@x.com`]) {
      const res = await t.call('POST', '/v1/auth/users', { email });
      expect(res.status, email).toBe(400);
      expect(expectErrorShape(res)).toMatchObject({ error_type: 'invalid_email', error_field: 'email' });
    }
    for (const phone_number of ['12345', '+1 555', 'phone', '+999 1234 5678', '+1 415 555 01234567']) {
      const res = await t.call('POST', '/v1/auth/users', { phone_number });
      expect(res.status, phone_number).toBe(400);
      expect(expectErrorShape(res)).toMatchObject({
        error_type: 'invalid_phone_number',
        error_field: 'phone_number',
      });
    }
  });

  it('keeps Apps apart: one App’s key cannot read another App’s user (404, no data)', async () => {
    const latchkey = createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET });
    const a = await testApp(latchkey);
    const b = await testApp(latchkey);
    const userB = await b.call('POST', '/v1/auth/users', { email: 'b@example.com' });
    const res = await a.call('GET', `/v1/auth/users/${userB.body.user_id}`);
    expect(res.status).toBe(404);
    expect(expectErrorShape(res).error_type).toBe('user_not_found');
    expect(JSON.stringify(res.body)).not.toContain('b@example.com');
    // The same address is free in App A: Apps do not share users.
    expect((await a.call('POST', '/v1/auth/users', { email: 'b@example.com' })).status).toBe(200);
  });
});
