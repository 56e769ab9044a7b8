import { LatchkeyError } from '@latchkey/core';
import { makeApp, makeContact, makeUser, uid } from '@latchkey/storage-conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, targets } from './targets.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const target of targets) {
  describe(`transactions on ${target.name}`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await target.open();
    });
    afterAll(async () => {
      await h?.dispose();
    });

    const appWithUser = async () => {
      const app = makeApp();
      await h.storage.apps.insert(app);
      const user = makeUser(app.id);
      await h.storage.users.insert(user);
      return { app, user };
    };

    it('rolls back every write when a statement fails with a database error', async () => {
      const { app } = await appWithUser();
      const user = makeUser(app.id);
      const email = makeContact(app.id, user.id);
      const failure = await h.storage
        .transaction(async (tx) => {
          await tx.users.insert(user);
          await tx.emails.insert(email);
          await tx.users.insert(user); // same primary key: unique violation
        })
        .catch((err: unknown) => err);
      // The database's own error, not turned into storage_unavailable.
      expect(failure).not.toBeInstanceOf(LatchkeyError);
      expect(failure).toMatchObject({ code: '23505' });
      expect(await h.storage.users.get(app.id, user.id)).toBeNull();
      expect(await h.storage.emails.findByAddress(app.id, email.address)).toBeNull();
    });

    it('keeps a transaction usable after an insert of an address that is taken', async () => {
      const { app, user } = await appWithUser();
      const taken = makeContact(app.id, user.id);
      await h.storage.emails.insert(taken);
      const phone = makeContact(app.id, user.id, { address: `+1${Date.now()}` });
      await h.storage.transaction(async (tx) => {
        expect(await tx.emails.insert(makeContact(app.id, user.id, { address: taken.address }))).toEqual({
          inserted: false,
        });
        // On Postgres an error here would have aborted the transaction: these writes would fail.
        await tx.phoneNumbers.insert(phone);
        await tx.users.update(app.id, user.id, { status: 'pending' });
      });
      expect(await h.storage.phoneNumbers.get(app.id, phone.id)).toEqual(phone);
      expect((await h.storage.users.get(app.id, user.id))?.status).toBe('pending');
    });

    it('keeps a read outside a transaction out of it until it ends', async () => {
      const { app } = await appWithUser();
      const user = makeUser(app.id);
      let outside: Promise<unknown> | undefined;
      const boom = new Error('rolled back');
      await expect(
        h.storage.transaction(async (tx) => {
          await tx.users.insert(user);
          // Not awaited: on PGlite it must wait for the one connection, not run inside this transaction.
          outside = h.storage.users.get(app.id, user.id);
          await delay(50);
          await tx.users.update(app.id, user.id, { status: 'pending' });
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await outside).toBeNull();

      let afterCommit: Promise<unknown> | undefined;
      await h.storage.transaction(async (tx) => {
        await tx.users.insert(user);
        afterCommit = h.storage.users.get(app.id, user.id);
        await delay(50);
        await tx.users.update(app.id, user.id, { status: 'pending', updated_at: user.updated_at + 1 });
      });
      // Postgres reads the committed state before the commit (null) or after it; PGlite only after.
      const seen = await afterCommit;
      if (target.name === 'pglite') {
        expect(seen).toEqual({ ...user, status: 'pending', updated_at: user.updated_at + 1 });
      } else {
        expect([null, { ...user, status: 'pending', updated_at: user.updated_at + 1 }]).toContainEqual(seen);
      }
    });

    it('passes what the transaction returns, and nested transactions share its writes', async () => {
      const { app } = await appWithUser();
      const user = makeUser(app.id);
      const email = makeContact(app.id, user.id, { address: `${uid('n')}@example.com` });
      const result = await h.storage.transaction(async (tx) => {
        await tx.users.insert(user);
        return tx.transaction(async (inner) => {
          await inner.emails.insert(email);
          return inner.emails.listByUser(app.id, user.id);
        });
      });
      expect(result).toEqual([email]);
    });
  });
}
