import type {
  ContactRepo,
  EventRecord,
  FoundOrCreated,
  Storage,
  UserRecord,
  UserStatus,
} from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { makeApp, makeContact, makeMagicLink, makeOtp, makeUser, NOW, uid } from './fixtures.js';

/** `user_status` is optional: a repo that answers it must answer `status`. */
const statusOf = (result: FoundOrCreated, status: UserStatus) =>
  result.user_status === undefined ? {} : { user_status: status };

/**
 * ContactRepo.findOrCreateWithUser(AndEvents), for storages that have them (the others keep the
 * core's lookup-then-transaction path, which the service tests cover).
 */
export function findOrCreateCases(storage: () => Storage, parallelism = 20): void {
  for (const name of ['emails', 'phoneNumbers'] as const) {
    describe(`${name}: find or create with the user`, () => {
      const newApp = async () => {
        const app = makeApp();
        await storage().apps.insert(app);
        return app;
      };
      /** A new user and a contact of it at `address`, not stored. */
      const candidate = (appId: string, address = `${uid('foc')}@example.com`) => {
        const user = makeUser(appId, { name: null, status: 'pending' });
        return { user, contact: makeContact(appId, user.id, { address }) };
      };
      const repo = (): Required<
        Pick<ContactRepo, 'findOrCreateWithUser' | 'findOrCreateWithUserAndEvents'>
      > | null => {
        const r = storage()[name];
        return r.findOrCreateWithUser && r.findOrCreateWithUserAndEvents
          ? {
              findOrCreateWithUser: r.findOrCreateWithUser.bind(r),
              findOrCreateWithUserAndEvents: r.findOrCreateWithUserAndEvents.bind(r),
            }
          : null;
      };
      const event = (user: UserRecord, type: EventRecord['type']): EventRecord => ({
        id: uid('evt'),
        app_id: user.app_id,
        type,
        data: { user_id: user.id },
        created_at: NOW,
      });

      it('creates the user and the contact for a new address, and finds them after', async () => {
        const r = repo();
        if (!r) return;
        const s = storage();
        const app = await newApp();
        const first = candidate(app.id);
        const created = await r.findOrCreateWithUser(first.user, first.contact);
        expect(created).toEqual({
          contact: first.contact,
          user_created: true,
          ...statusOf(created, 'pending'),
        });
        expect(await s.users.get(app.id, first.user.id)).toEqual(first.user);
        expect(await s[name].findByAddress(app.id, first.contact.address)).toEqual(first.contact);

        const again = candidate(app.id, first.contact.address);
        const found = await r.findOrCreateWithUser(again.user, again.contact);
        expect(found).toEqual({ contact: first.contact, user_created: false, ...statusOf(found, 'pending') });
        expect(await s.users.get(app.id, again.user.id)).toBeNull();
        expect(await s[name].get(app.id, again.contact.id)).toBeNull();

        // Another App's address is its own.
        const other = await newApp();
        const elsewhere = candidate(other.id, first.contact.address);
        expect((await r.findOrCreateWithUser(elsewhere.user, elsewhere.contact)).user_created).toBe(true);
      });

      it("reports the found contact's user's status as stored, not the candidate's", async () => {
        const r = repo();
        if (!r) return;
        const s = storage();
        const app = await newApp();
        const first = candidate(app.id);
        await r.findOrCreateWithUser(first.user, first.contact);
        await s.users.update(app.id, first.user.id, { status: 'active', updated_at: NOW + 1 });
        const again = candidate(app.id, first.contact.address);
        const found = await r.findOrCreateWithUser(again.user, again.contact);
        expect(found).toEqual({ contact: first.contact, user_created: false, ...statusOf(found, 'active') });
      });

      it('writes the events only when it creates', async () => {
        const r = repo();
        if (!r) return;
        const s = storage();
        const app = await newApp();
        const first = candidate(app.id);
        const written = [event(first.user, 'user.created'), event(first.user, 'email.added')];
        expect((await r.findOrCreateWithUserAndEvents(first.user, first.contact, written)).user_created).toBe(
          true,
        );
        for (const e of written) expect(await s.events.get(app.id, e.id)).toEqual(e);

        const again = candidate(app.id, first.contact.address);
        const unwritten = [event(again.user, 'user.created'), event(again.user, 'email.added')];
        const found = await r.findOrCreateWithUserAndEvents(again.user, again.contact, unwritten);
        expect(found).toEqual({ contact: first.contact, user_created: false, ...statusOf(found, 'pending') });
        for (const e of unwritten) expect(await s.events.get(app.id, e.id)).toBeNull();
      });

      it('lets exactly one of concurrent calls for one new address create, leaving no other user', async () => {
        const r = repo();
        if (!r) return;
        const s = storage();
        const app = await newApp();
        const address = `${uid('race')}@example.com`;
        const calls = Array.from({ length: Math.max(parallelism, 2) }, () => candidate(app.id, address));
        const results = await Promise.all(calls.map((c) => r.findOrCreateWithUser(c.user, c.contact)));

        const winners = calls.filter((_, i) => results[i]!.user_created);
        expect(winners).toHaveLength(1);
        const winner = winners[0]!;
        // A loser answers the winner's contact, or null when it could not see it yet.
        for (const res of results) expect([winner.contact, null]).toContainEqual(res.contact);
        expect(await s[name].findByAddress(app.id, address)).toEqual(winner.contact);
        for (const c of calls) {
          expect(await s.users.get(app.id, c.user.id)).toEqual(c === winner ? c.user : null);
        }
      });
    });

    describe(`${name}: find or create with the user and the first code or link`, () => {
      const newApp = async () => {
        const app = makeApp();
        await storage().apps.insert(app);
        return app;
      };
      /** A new user, a contact of it at `address`, and the contact's first code and link, not stored. */
      const candidate = (appId: string, address = `${uid('focc')}@example.com`) => {
        const user = makeUser(appId, { name: null, status: 'pending' });
        const contact = makeContact(appId, user.id, { address });
        return {
          user,
          contact,
          otp: makeOtp(appId, user.id, contact.id),
          link: makeMagicLink(appId, user.id, contact.id, { kind: 'signup' }),
        };
      };
      type Candidate = ReturnType<typeof candidate>;
      const event = (user: UserRecord, type: EventRecord['type']): EventRecord => ({
        id: uid('evt'),
        app_id: user.app_id,
        type,
        data: { user_id: user.id },
        created_at: NOW,
      });
      /** Each first write this storage has: its call, and whether the candidate's first write is stored. */
      const writes = () => {
        const s = storage();
        const r = s[name];
        const linkStored = async (c: Candidate) =>
          (await s.magicLinks.consume(c.link.app_id, c.link.token_hash, NOW, 5, [])).ok;
        const all = [
          r.findOrCreateWithUserAndOtp && r.findOrCreateWithUserOtpAndEvents
            ? {
                what: 'code',
                call: (c: Candidate, events?: EventRecord[]) =>
                  events
                    ? r.findOrCreateWithUserOtpAndEvents!(c.user, c.contact, c.otp, events)
                    : r.findOrCreateWithUserAndOtp!(c.user, c.contact, c.otp),
                stored: async (c: Candidate) => {
                  const got = await s.otps.get(c.otp.app_id, c.contact.id);
                  if (got) expect(got).toEqual(c.otp);
                  return got !== null;
                },
              }
            : null,
          r.findOrCreateWithUserAndLink && r.findOrCreateWithUserLinkAndEvents
            ? {
                what: 'link',
                call: (c: Candidate, events?: EventRecord[]) =>
                  events
                    ? r.findOrCreateWithUserLinkAndEvents!(c.user, c.contact, c.link, events)
                    : r.findOrCreateWithUserAndLink!(c.user, c.contact, c.link),
                stored: linkStored,
              }
            : null,
        ];
        return all.filter((w) => w !== null);
      };

      it('writes the first code or link with a created contact, none with a found one', async () => {
        const s = storage();
        for (const w of writes()) {
          const app = await newApp();
          const first = candidate(app.id);
          const created = await w.call(first);
          expect(created, w.what).toEqual({
            contact: first.contact,
            user_created: true,
            ...statusOf(created, 'pending'),
          });
          expect(await s.users.get(app.id, first.user.id)).toEqual(first.user);
          expect(await w.stored(first), w.what).toBe(true);

          const again = candidate(app.id, first.contact.address);
          // Its code or link bound to the found contact: still not written by this call.
          again.otp = { ...again.otp, method_id: first.contact.id, user_id: first.user.id };
          again.link = { ...again.link, email_id: first.contact.id, user_id: first.user.id };
          const found = await w.call(again);
          expect(found, w.what).toEqual({
            contact: first.contact,
            user_created: false,
            ...statusOf(found, 'pending'),
          });
          expect(await s.users.get(app.id, again.user.id)).toBeNull();
          if (w.what === 'code') expect(await s.otps.get(app.id, first.contact.id)).toEqual(first.otp);
          else expect(await w.stored(again)).toBe(false);
        }
      });

      it('writes the events only when it creates', async () => {
        const s = storage();
        for (const w of writes()) {
          const app = await newApp();
          const first = candidate(app.id);
          const written = [event(first.user, 'user.created'), event(first.user, 'email.added')];
          expect((await w.call(first, written)).user_created, w.what).toBe(true);
          for (const e of written) expect(await s.events.get(app.id, e.id)).toEqual(e);
          expect(await w.stored(first)).toBe(true);

          const again = candidate(app.id, first.contact.address);
          const unwritten = [event(again.user, 'user.created'), event(again.user, 'email.added')];
          expect((await w.call(again, unwritten)).user_created).toBe(false);
          for (const e of unwritten) expect(await s.events.get(app.id, e.id)).toBeNull();
          expect(await w.stored(again)).toBe(false);
        }
      });

      it('of concurrent calls for one new address, writes only the creator’s code or link', async () => {
        const s = storage();
        for (const w of writes()) {
          const app = await newApp();
          const address = `${uid('race')}@example.com`;
          const calls = Array.from({ length: Math.max(parallelism, 2) }, () => candidate(app.id, address));
          const results = await Promise.all(calls.map((c) => w.call(c)));
          const winners = calls.filter((_, i) => results[i]!.user_created);
          expect(winners, w.what).toHaveLength(1);
          const winner = winners[0]!;
          expect(await s[name].findByAddress(app.id, address)).toEqual(winner.contact);
          for (const c of calls) {
            expect(await s.users.get(app.id, c.user.id)).toEqual(c === winner ? c.user : null);
            expect(await w.stored(c), w.what).toBe(c === winner);
          }
        }
      });
    });
  }
}
