import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLatchkey,
  type EventRecord,
  type Latchkey,
  type OutboundMessage,
  type Storage,
} from '../src/index.js';
import { storageBackends } from './storage-backends.js';

/**
 * A send to a new address creates the user and the contact with the same two events whichever
 * path the storage takes (memory: a lookup and a transaction; kysely: one statement), stored and
 * heard by listeners; a send to a known address writes none.
 */
describe.each(storageBackends())('find-or-create events on $name', (backend) => {
  let dispose: () => Promise<void>;
  let latchkey: Latchkey;
  let appId: string;
  let storage: Storage;
  const heard: EventRecord[] = [];
  const sent: OutboundMessage[] = [];

  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    storage = opened.storage;
    latchkey = createLatchkey({
      storage: opened.storage,
      secret: 'find-or-create-events-secret-0123456789',
      sender: { send: async (m) => void sent.push(m) },
    });
    latchkey.events.on('*', (e) => void heard.push(e));
    appId = (
      await latchkey.apps.create({
        name: 'Find or create',
        settings: {
          // The races below send 20 messages to one address.
          rate_limits: { per_destination: { limit: 100, window_seconds: 60 } },
          redirect_urls: {
            login: ['https://x.test/l'],
            signup: ['https://x.test/s'],
            default_login: 'https://x.test/l',
            default_signup: 'https://x.test/s',
          },
        },
      })
    ).app_id;
  });
  afterAll(async () => {
    await dispose?.();
  });

  const stored = async () =>
    (await latchkey.events.list(appId, { limit: 100 })).events
      .filter((e) => e.type === 'user.created' || e.type.endsWith('.added'))
      .reverse();

  it('writes user.created then email.added for a new address, nothing for a known one', async () => {
    const first = await latchkey.otps.loginOrCreate(appId, 'email', { address: 'new.one@example.com' });
    expect(first.user_created).toBe(true);
    const events = await stored();
    expect(events.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'user.created', data: { user_id: first.user_id, status: 'active' } },
      {
        type: 'email.added',
        data: { user_id: first.user_id, email_id: first.email_id, email: 'new.one@example.com' },
      },
    ]);
    expect(heard.filter((e) => e.app_id === appId)).toEqual(events);

    const again = await latchkey.otps.loginOrCreate(appId, 'email', { address: 'new.one@example.com' });
    expect(again).toMatchObject({ user_created: false, user_id: first.user_id, email_id: first.email_id });
    expect(await stored()).toEqual(events);
    expect(heard.filter((e) => e.app_id === appId)).toEqual(events);
  });

  it('writes user.created then email.added for a magic link to a new address, whose link works', async () => {
    const first = await latchkey.magicLinks.loginOrCreate(appId, { email: 'link.new@example.com' });
    expect(first.user_created).toBe(true);
    const events = (await stored()).filter((e) => e.data.user_id === first.user_id);
    expect(events.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'user.created', data: { user_id: first.user_id, status: 'active' } },
      {
        type: 'email.added',
        data: { user_id: first.user_id, email_id: first.email_id, email: 'link.new@example.com' },
      },
    ]);
    expect(heard.filter((e) => e.data.user_id === first.user_id)).toEqual(events);
    const url = new URL(sent.at(-1)!.url!);
    expect(url.origin + url.pathname).toBe('https://x.test/s');
    const token = url.searchParams.get('token')!;
    const used = await latchkey.magicLinks.authenticate(appId, { token });
    expect(used).toMatchObject({ email_id: first.email_id, link_type: 'signup' });
  });

  /**
   * Racing sends to one new address: one user, one contact, two events. Where the code is stored
   * by the statement that creates the contact (kysely), every racer that finds the contact finds
   * its code too and sends that one again: all are emailed the one code, and it verifies.
   */
  it('of 20 concurrent passcode sends to a new address, one creates; the code sent verifies', async () => {
    const address = 'race.otp@example.com';
    const results = await Promise.all(
      Array.from({ length: 20 }, () => latchkey.otps.loginOrCreate(appId, 'email', { address })),
    );
    expect(results.filter((r) => r.user_created)).toHaveLength(1);
    const { user_id, method_id } = results.find((r) => r.user_created)!;
    for (const r of results) expect(r).toMatchObject({ user_id, email_id: method_id, method_id });
    expect((await latchkey.users.get(appId, user_id)).emails).toHaveLength(1);
    expect((await stored()).filter((e) => e.data.user_id === user_id)).toHaveLength(2);
    const codes = sent.filter((m) => m.to === address).map((m) => m.code!);
    expect(codes).toHaveLength(20);
    if (storage.emails.findOrCreateWithUserAndOtp) expect(new Set(codes).size).toBe(1);
    // The code stored is the one emailed last to a racer that stored one: it verifies.
    const verified = await latchkey.otps.verify(appId, { method_id, otp: codes.at(-1)! });
    expect(verified).toMatchObject({ method_id, user_id });
  });

  it('of 20 concurrent magic-link sends to a new address, one creates; every link sent works', async () => {
    const address = 'race.link@example.com';
    const before = sent.length;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => latchkey.magicLinks.loginOrCreate(appId, { email: address })),
    );
    expect(results.filter((r) => r.user_created)).toHaveLength(1);
    const { user_id, email_id } = results.find((r) => r.user_created)!;
    for (const r of results) expect(r).toMatchObject({ user_id, email_id });
    expect((await latchkey.users.get(appId, user_id)).emails).toHaveLength(1);
    const links = sent.slice(before).map((m) => new URL(m.url!));
    expect(links).toHaveLength(20);
    // The creator's is a signup link: its user was new.
    expect(links.filter((u) => u.pathname === '/s').length).toBeGreaterThanOrEqual(1);
    for (const link of links) {
      const used = await latchkey.magicLinks.authenticate(appId, { token: link.searchParams.get('token')! });
      expect(used.email_id).toBe(email_id);
    }
  });

  it('writes user.created (pending) then phone_number.added for a new phone number', async () => {
    const sent = await latchkey.otps.loginOrCreate(appId, 'sms', {
      address: '+14155550142',
      create_user_as_pending: true,
    });
    const events = (await stored()).filter((e) => e.data.user_id === sent.user_id);
    expect(events.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'user.created', data: { user_id: sent.user_id, status: 'pending' } },
      {
        type: 'phone_number.added',
        data: { user_id: sent.user_id, phone_id: sent.phone_number_id, phone_number: '+14155550142' },
      },
    ]);
    expect(heard.filter((e) => e.data.user_id === sent.user_id)).toEqual(events);
  });
});
