import {
  createLatchkey,
  type EventRecord,
  type Latchkey,
  type OutboundMessage,
  type Storage,
} from '@latchkey/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, targets } from './targets.js';

const SECRET = 'verified-event-test-secret-0123456789abcdef';

/** The storage as a repo without the one-statement method sees it: the events layer uses a transaction. */
const withoutOneStep = (storage: Storage): Storage => {
  const drop = <R extends object>(repo: R): R => {
    const { markVerifiedWithEvents: _dropped, ...rest } = repo as R & { markVerifiedWithEvents?: unknown };
    return rest as R;
  };
  return { ...storage, emails: drop(storage.emails), phoneNumbers: drop(storage.phoneNumbers) };
};

/**
 * A contact marked verified writes its event in the same statement as the update (the event's
 * data built in SQL from the updated row): it must be the event the transaction path writes for
 * the same change, with the same deliveries, and there must be none when no contact matched.
 */
describe.each(targets)('the verified contact’s event in one statement on $name', (target) => {
  let h: Harness;
  let oneStep: Latchkey;
  let inTransaction: Latchkey;
  let appId: string;
  let endpointId: string;
  const sent: OutboundMessage[] = [];
  const heard: EventRecord[] = [];

  beforeAll(async () => {
    h = await target.open();
    const sender = { send: async (m: OutboundMessage) => void sent.push(m) };
    oneStep = createLatchkey({ storage: h.storage, secret: SECRET, sender });
    inTransaction = createLatchkey({ storage: withoutOneStep(h.storage), secret: SECRET, sender });
    for (const l of [oneStep, inTransaction]) l.events.on('*', (e) => void heard.push(e));
    const app = await oneStep.apps.create({
      name: 'Verified',
      settings: { rate_limits: { per_destination: { limit: 1000 }, per_app: { limit: 100_000 } } },
    });
    appId = app.app_id;
    const endpoint = await oneStep.webhooks.createEndpoint(appId, {
      url: 'https://hooks.example.com/in',
      event_types: ['email.verified', 'phone_number.verified'],
    });
    endpointId = endpoint.endpoint_id;
  });
  afterAll(async () => {
    await h?.dispose();
  });

  const verify = async (latchkey: Latchkey, channel: 'email' | 'sms', address: string) => {
    const { method_id } = await latchkey.otps.loginOrCreate(appId, channel, { address });
    const otp = sent.filter((m) => m.to === address).at(-1)!.code!;
    await latchkey.otps.verify(appId, { method_id, otp, session_expires_in: 60 });
    return method_id;
  };

  const storedEvents = (type: string, address: string) =>
    h.sql<{ id: string; app_id: string; type: string; data: string; created_at: string }>(
      `select id, app_id, type, data::text as data, created_at::text as created_at from "${h.schema}".events
       where type = $1 and data->>$2 = $3 order by id`,
      [type, type === 'email.verified' ? 'email' : 'phone_number', address],
    );

  it.each([
    { channel: 'email' as const, address: 'same@example.com', type: 'email.verified' },
    { channel: 'sms' as const, address: '+14155550123', type: 'phone_number.verified' },
  ])('$type: the one statement writes what the transaction writes', async ({ channel, address, type }) => {
    expect(h.storage.emails.markVerifiedWithEvents).toBeTypeOf('function');
    expect(h.storage.phoneNumbers.markVerifiedWithEvents).toBeTypeOf('function');
    // The same change twice: the contact marked verified by each path in turn.
    const methodId = await verify(oneStep, channel, address);
    expect(await verify(inTransaction, channel, address)).toBe(methodId);
    const rows = await storedEvents(type, address);
    expect(rows).toHaveLength(2);
    const [one, two] = rows as [(typeof rows)[0], (typeof rows)[0]];
    // Same type, App and data, to the byte of the stored jsonb.
    expect({ app_id: one.app_id, type: one.type, data: one.data }).toEqual({
      app_id: two.app_id,
      type: two.type,
      data: two.data,
    });
    const contact = await (channel === 'email' ? h.storage.emails : h.storage.phoneNumbers).get(
      appId,
      methodId,
    );
    expect(JSON.parse(one.data)).toEqual(
      channel === 'email'
        ? { user_id: contact!.user_id, email_id: methodId, email: address }
        : { user_id: contact!.user_id, phone_id: methodId, phone_number: address },
    );
    // What listeners heard is what was stored, under the stored id and time.
    for (const row of rows) {
      expect(heard.find((e) => e.id === row.id)).toEqual({
        id: row.id,
        app_id: row.app_id,
        type: row.type,
        data: JSON.parse(row.data),
        created_at: Number(row.created_at),
      });
    }
    // Each event owes the subscribed endpoint a delivery, due at the event's time.
    const deliveries = await h.sql<{ event_id: string; endpoint_id: string; status: string; due: string }>(
      `select event_id, endpoint_id, status, next_attempt_at::text as due from "${h.schema}".webhook_deliveries
       where event_id = any($1) order by event_id`,
      [rows.map((r) => r.id)],
    );
    expect(deliveries).toEqual(
      rows.map((r) => ({ event_id: r.id, endpoint_id: endpointId, status: 'pending', due: r.created_at })),
    );
  });

  it('writes no event when no contact matched', async () => {
    const event: EventRecord = {
      id: 'evt_verified_nothing',
      app_id: appId,
      type: 'email.verified',
      data: {},
      created_at: 1_700_000_000,
    };
    for (const repo of [h.storage.emails, h.storage.phoneNumbers]) {
      expect(await repo.markVerifiedWithEvents!(appId, 'contact_missing', 1_700_000_000, [event])).toBeNull();
    }
    const other = await oneStep.apps.create({ name: 'Other' });
    // A contact of another App is no match either.
    const methodId = await verify(oneStep, 'email', 'other-app@example.com');
    expect(
      await h.storage.emails.markVerifiedWithEvents!(other.app_id, methodId, 1_700_000_000, [event]),
    ).toBeNull();
    expect(
      await h.sql(`select id from "${h.schema}".events where id = $1`, ['evt_verified_nothing']),
    ).toEqual([]);
    expect(
      await h.sql(`select event_id from "${h.schema}".webhook_deliveries where event_id = $1`, [
        'evt_verified_nothing',
      ]),
    ).toEqual([]);
  });
});
