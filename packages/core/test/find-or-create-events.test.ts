import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey, type EventRecord, type Latchkey } from '../src/index.js';
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
  const heard: EventRecord[] = [];

  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    latchkey = createLatchkey({
      storage: opened.storage,
      secret: 'find-or-create-events-secret-0123456789',
      sender: { send: async () => {} },
    });
    latchkey.events.on('*', (e) => void heard.push(e));
    appId = (await latchkey.apps.create({ name: 'Find or create' })).app_id;
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
