import type { Storage } from '@latchkey/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, makeContact, makeUser, NOW, uid } from './fixtures.js';
import { authRepoCases } from './suite-auth.js';
import { findOrCreateCases } from './suite-find-or-create.js';
import { oauthRepoCases } from './suite-oauth.js';
import { organizationRepoCases } from './suite-organizations.js';
import { passwordRepoCases } from './suite-passwords.js';
import { revocationRecordCases } from './suite-revocations.js';
import { ssoRepoCases } from './suite-sso.js';
import { stateTableCases } from './suite-states.js';
import { makeTotp, totpRepoCases } from './suite-totps.js';
import { walletChallengeRepoCases } from './suite-wallet-challenges.js';
import { walletPolicyRepoCases } from './suite-wallet-policies.js';
import { walletTransactionRepoCases } from './suite-wallet-transactions.js';
import { makeWallet, walletRepoCases } from './suite-wallets.js';
import { makeWebAuthnCredential, webauthnRepoCases } from './suite-webauthn.js';
import { webhookRepoCases } from './suite-webhooks.js';

export interface ConformanceTarget {
  /** Shown in the test names, e.g. "memory" or "postgres". */
  name: string;
  /** A ready Storage (migrated, empty or not: the suite only uses rows it creates). */
  create(): Promise<Storage>;
  /** How many operations the backend really runs in parallel; concurrency cases use it. */
  parallelism?: number;
}

/**
 * The Storage contract, written once. Every adapter runs it: `runStorageConformance({ name,
 * create })` inside a vitest file. Each case makes its own App, so a shared database is fine.
 */
export function runStorageConformance(target: ConformanceTarget): void {
  describe(`Storage conformance: ${target.name}`, () => {
    let s: Storage;
    beforeAll(async () => {
      s = await target.create();
    });
    afterAll(async () => {
      await s?.close();
    });

    const appWithUser = async () => {
      const app = makeApp();
      await s.apps.insert(app);
      const user = makeUser(app.id);
      await s.users.insert(user);
      return { app, user };
    };

    describe('apps', () => {
      it('stores and reads an App with its settings', async () => {
        const app = makeApp({ name: 'Ünïcode ✓' });
        app.settings.redirect_urls.login = ['https://example.com/auth'];
        await s.apps.insert(app);
        expect(await s.apps.get(app.id)).toEqual(app);
        expect(await s.apps.get(uid('app'))).toBeNull();
        expect((await s.apps.list()).map((a) => a.id)).toContain(app.id);
      });

      it('finds an App by the hash of its secret key, public token or unexpired previous key', async () => {
        const app = makeApp({
          previous_secret_key_hash: uid('old'),
          previous_secret_key_expires_at: NOW + 60,
        });
        await s.apps.insert(app);
        expect(await s.apps.findByKeyHash(app.secret_key_hash, NOW)).toEqual({ app, kind: 'secret' });
        expect(await s.apps.findByKeyHash(app.public_token_hash, NOW)).toEqual({ app, kind: 'public' });
        expect((await s.apps.findByKeyHash(app.previous_secret_key_hash!, NOW))?.kind).toBe('secret');
        expect(await s.apps.findByKeyHash(app.previous_secret_key_hash!, NOW + 60)).toBeNull();
        expect(await s.apps.findByKeyHash(uid('nothing'), NOW)).toBeNull();
      });

      it('updates an App and returns the new record', async () => {
        const app = makeApp();
        await s.apps.insert(app);
        const updated = await s.apps.update(app.id, {
          name: 'Renamed',
          secret_key_hash: 'h2',
          updated_at: NOW + 5,
        });
        expect(updated).toEqual({ ...app, name: 'Renamed', secret_key_hash: 'h2', updated_at: NOW + 5 });
        expect(await s.apps.get(app.id)).toEqual(updated);
        expect(await s.apps.findByKeyHash(app.secret_key_hash, NOW)).toBeNull();
        expect(await s.apps.update(uid('app'), { name: 'x' })).toBeNull();
      });
    });

    describe('users', () => {
      it('reads a user only through its own App', async () => {
        const { app, user } = await appWithUser();
        const other = makeApp();
        await s.apps.insert(other);
        expect(await s.users.get(app.id, user.id)).toEqual(user);
        expect(await s.users.get(other.id, user.id)).toBeNull();
        expect(await s.users.update(other.id, user.id, { status: 'pending' })).toBeNull();
        expect((await s.users.get(app.id, user.id))?.status).toBe('active');
      });

      it('reads a user with its lists in one call, equal to the separate reads, only in its App', async () => {
        const { app, user } = await appWithUser();
        const bare = await s.users.getWithMethods(app.id, user.id);
        expect(bare).toEqual({
          user,
          emails: [],
          phone_numbers: [],
          totp: null,
          wallets: [],
          webauthn_credentials: [],
        });
        const later = makeContact(app.id, user.id, { created_at: NOW + 5 });
        const earlier = makeContact(app.id, user.id, { created_at: NOW + 1 });
        await s.emails.insert(later);
        await s.emails.insert(earlier);
        await s.phoneNumbers.insert(
          makeContact(app.id, user.id, { address: `+1415555${Date.now() % 10000}` }),
        );
        await s.totps.createPending(makeTotp(app.id, user.id), []);
        await s.wallets.createDefaultIfAbsent(makeWallet(app.id, user.id, { wallet_type: 'ethereum' }));
        await s.wallets.createDefaultIfAbsent(makeWallet(app.id, user.id, { wallet_type: 'solana' }));
        await s.webauthn.insertCredential(makeWebAuthnCredential(app.id, user.id, { name: 'Laptop' }));
        const full = await s.users.getWithMethods(app.id, user.id);
        expect(full).toEqual({
          user,
          emails: await s.emails.listByUser(app.id, user.id),
          phone_numbers: await s.phoneNumbers.listByUser(app.id, user.id),
          totp: await s.totps.getForUser(app.id, user.id),
          wallets: (await s.wallets.list(app.id, { userId: user.id, limit: 1000 })).wallets,
          webauthn_credentials: await s.webauthn.listByUser(app.id, user.id),
        });
        expect(full?.emails.map((e) => e.id)).toEqual([earlier.id, later.id]);
        expect(full?.wallets).toHaveLength(2);
        expect(full?.totp).not.toBeNull();
        const other = makeApp();
        await s.apps.insert(other);
        expect(await s.users.getWithMethods(other.id, user.id)).toBeNull();
        expect(await s.users.getWithMethods(app.id, 'user_missing')).toBeNull();
      });

      it('updates status, name and updated_at', async () => {
        const { app, user } = await appWithUser();
        const updated = await s.users.update(app.id, user.id, {
          status: 'pending',
          name: { first_name: 'Grace' },
          updated_at: NOW + 1,
        });
        expect(updated).toEqual({
          ...user,
          status: 'pending',
          name: { first_name: 'Grace' },
          updated_at: NOW + 1,
        });
        expect(await s.users.get(app.id, user.id)).toEqual(updated);
      });

      it('keeps a null name', async () => {
        const app = makeApp();
        await s.apps.insert(app);
        const user = makeUser(app.id, { name: null });
        await s.users.insert(user);
        expect(await s.users.get(app.id, user.id)).toEqual(user);
      });
    });

    for (const repo of ['emails', 'phoneNumbers'] as const) {
      describe(repo, () => {
        it('inserts, reads, lists by user, marks verified and deletes', async () => {
          const { app, user } = await appWithUser();
          const a = makeContact(app.id, user.id);
          const b = makeContact(app.id, user.id);
          expect(await s[repo].insert(a)).toEqual({ inserted: true });
          expect(await s[repo].insert(b)).toEqual({ inserted: true });
          expect(await s[repo].get(app.id, a.id)).toEqual(a);
          expect(await s[repo].findByAddress(app.id, a.address)).toEqual(a);
          expect((await s[repo].listByUser(app.id, user.id)).map((c) => c.id).sort()).toEqual(
            [a.id, b.id].sort(),
          );
          expect(await s[repo].markVerified(app.id, a.id, NOW + 9)).toEqual({ ...a, verified_at: NOW + 9 });
          expect(await s[repo].delete(app.id, a.id)).toEqual({ ...a, verified_at: NOW + 9 });
          expect(await s[repo].get(app.id, a.id)).toBeNull();
          expect(await s[repo].delete(app.id, a.id)).toBeNull();
        });

        it('keeps one address per App, but the same address in two Apps', async () => {
          const { app, user } = await appWithUser();
          const first = makeContact(app.id, user.id);
          await s[repo].insert(first);
          const again = makeContact(app.id, user.id, { address: first.address });
          expect(await s[repo].insert(again)).toEqual({ inserted: false });
          expect(await s[repo].get(app.id, again.id)).toBeNull();
          const other = await appWithUser();
          const elsewhere = makeContact(other.app.id, other.user.id, { address: first.address });
          expect(await s[repo].insert(elsewhere)).toEqual({ inserted: true });
          expect(await s[repo].findByAddress(app.id, first.address)).toEqual(first);
          expect(await s[repo].findByAddress(other.app.id, first.address)).toEqual(elsewhere);
        });

        it('never shows one App a contact of another', async () => {
          const { app, user } = await appWithUser();
          const other = await appWithUser();
          const c = makeContact(app.id, user.id);
          await s[repo].insert(c);
          expect(await s[repo].get(other.app.id, c.id)).toBeNull();
          expect(await s[repo].findByAddress(other.app.id, c.address)).toBeNull();
          expect(await s[repo].listByUser(other.app.id, user.id)).toEqual([]);
          expect(await s[repo].markVerified(other.app.id, c.id, NOW)).toBeNull();
          expect(await s[repo].delete(other.app.id, c.id)).toBeNull();
          expect(await s[repo].get(app.id, c.id)).toEqual(c);
        });

        it('lets exactly one of 20 concurrent inserts of one address win', async () => {
          const { app, user } = await appWithUser();
          const address = `${uid('race')}@example.com`;
          const results = await Promise.all(
            Array.from({ length: 20 }, () => s[repo].insert(makeContact(app.id, user.id, { address }))),
          );
          expect(results.filter((r) => r.inserted)).toHaveLength(1);
          expect(await s[repo].listByUser(app.id, user.id)).toHaveLength(1);
        });
      });
    }

    findOrCreateCases(() => s, target.parallelism);
    authRepoCases(() => s);
    revocationRecordCases(() => s);
    walletRepoCases(() => s);
    totpRepoCases(() => s);
    passwordRepoCases(() => s, target.parallelism);
    oauthRepoCases(() => s, target.parallelism);
    organizationRepoCases(() => s, target.parallelism);
    ssoRepoCases(() => s, target.parallelism);
    webauthnRepoCases(() => s);
    walletChallengeRepoCases(() => s);
    walletPolicyRepoCases(() => s);
    walletTransactionRepoCases(() => s, target.parallelism);
    stateTableCases(() => s);
    webhookRepoCases(() => s, target.parallelism);

    describe('transactions', () => {
      it('commits every write of a transaction', async () => {
        const app = makeApp();
        await s.apps.insert(app);
        const user = makeUser(app.id);
        const email = makeContact(app.id, user.id);
        const result = await s.transaction(async (tx) => {
          await tx.users.insert(user);
          await tx.emails.insert(email);
          return 'done';
        });
        expect(result).toBe('done');
        expect(await s.users.get(app.id, user.id)).toEqual(user);
        expect(await s.emails.get(app.id, email.id)).toEqual(email);
      });

      it('leaves no row behind when the transaction throws midway', async () => {
        const app = makeApp();
        await s.apps.insert(app);
        const user = makeUser(app.id);
        const email = makeContact(app.id, user.id);
        const boom = new Error('forced failure after two writes');
        await expect(
          s.transaction(async (tx) => {
            await tx.users.insert(user);
            await tx.emails.insert(email);
            await tx.users.update(app.id, user.id, { status: 'pending' });
            throw boom;
          }),
        ).rejects.toBe(boom);
        expect(await s.users.get(app.id, user.id)).toBeNull();
        expect(await s.emails.get(app.id, email.id)).toBeNull();
        expect(await s.emails.findByAddress(app.id, email.address)).toBeNull();
      });

      it('joins a nested transaction to the outer one', async () => {
        const app = makeApp();
        await s.apps.insert(app);
        const user = makeUser(app.id);
        await expect(
          s.transaction(async (tx) => {
            await tx.transaction(async (inner) => inner.users.insert(user));
            throw new Error('outer fails');
          }),
        ).rejects.toThrow('outer fails');
        expect(await s.users.get(app.id, user.id)).toBeNull();
      });

      it('sees its own writes inside the transaction', async () => {
        const app = makeApp();
        await s.apps.insert(app);
        const user = makeUser(app.id);
        const seen = await s.transaction(async (tx) => {
          await tx.users.insert(user);
          return tx.users.get(app.id, user.id);
        });
        expect(seen).toEqual(user);
      });
    });
  });
}
