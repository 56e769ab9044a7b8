import { createLatchkey, type Latchkey, type OutboundMessage } from '@latchkey/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, targets } from './targets.js';

/**
 * The races that matter, through the real services on each backend: with Postgres they run with
 * true parallelism over a pool of 10 connections, so only the storage's atomic statements keep
 * them safe.
 */
describe.each(targets)('services on $name', (target) => {
  let h: Harness;
  let latchkey: Latchkey;
  const sent: OutboundMessage[] = [];
  let appId: string;

  beforeAll(async () => {
    h = await target.open();
    latchkey = createLatchkey({
      storage: h.storage,
      secret: 'services-test-secret-0123456789abcdef',
      sender: { send: async (m) => void sent.push(m) },
    });
    const app = await latchkey.apps.create({
      name: 'Races',
      settings: {
        rate_limits: { per_destination: { limit: 1000 }, per_app: { limit: 100_000 } },
        redirect_urls: {
          login: ['https://x.test/l'],
          signup: ['https://x.test/s'],
          default_login: 'https://x.test/l',
          default_signup: 'https://x.test/s',
        },
      },
    });
    appId = app.app_id;
  });
  afterAll(async () => {
    await h?.dispose();
  });

  const last = (to: string) => sent.filter((m) => m.to === to).at(-1)!;

  it('20 concurrent verifies of one passcode: exactly one succeeds', async () => {
    const { method_id } = await latchkey.otps.loginOrCreate(appId, 'email', {
      address: 'otp.race@example.com',
    });
    const otp = last('otp.race@example.com').code!;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        latchkey.otps.verify(appId, { method_id, otp, session_expires_in: 60 }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const reasons = results.flatMap((r) =>
      r.status === 'rejected' ? [(r.reason as { errorType: string }).errorType] : [],
    );
    expect(reasons).toEqual(Array(19).fill('otp_code_used'));
  });

  it('20 concurrent authenticates of one magic link: exactly one succeeds', async () => {
    await latchkey.magicLinks.loginOrCreate(appId, { email: 'link.race@example.com' });
    const token = new URL(last('link.race@example.com').url!).searchParams.get('token')!;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => latchkey.magicLinks.authenticate(appId, { token })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('20 concurrent login_or_create of one new address: one user', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        latchkey.otps.loginOrCreate(appId, 'sms', { address: '+14155550999' }),
      ),
    );
    expect(new Set(results.map((r) => r.user_id)).size).toBe(1);
    expect(results.filter((r) => r.user_created)).toHaveLength(1);
    const users = await h.sql<{ n: string }>(
      `select count(*) as n from "${h.schema}".users where app_id = $1 and id = any($2)`,
      [appId, [...new Set(results.map((r) => r.user_id))]],
    );
    expect(Number(users[0]!.n)).toBe(1);
  });

  it('20 concurrent demotions and removals of the last two owners leave exactly one owner', async () => {
    // Rounds, each on a fresh organization: one round's overlap can be too short to show a bug.
    for (let round = 0; round < 5; round++) {
      const [a, b] = [await latchkey.users.create(appId, {}), await latchkey.users.create(appId, {})];
      const org = await latchkey.organizations.create(appId, {
        name: 'Race',
        slug: `race-${round}-${Date.now()}`,
        owner_user_id: a.user_id,
      });
      await latchkey.organizations.addMember(appId, org.organization_id, {
        user_id: b.user_id,
        roles: ['owner'],
      });
      const { members } = await latchkey.organizations.listMembers(appId, org.organization_id, {});
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => {
          const member = members[i % 2]!.member_id;
          return i % 4 < 2
            ? latchkey.organizations.updateMember(appId, org.organization_id, member, { roles: ['admin'] })
            : latchkey.organizations.removeMember(appId, org.organization_id, member);
        }),
      );
      const refused = results.flatMap((r) =>
        r.status === 'rejected' ? [(r.reason as { errorType: string }).errorType] : [],
      );
      expect(
        new Set(refused).size === 0 ||
          [...new Set(refused)].every((t) => ['last_owner', 'organization_member_not_found'].includes(t)),
      ).toBe(true);
      const owners = await h.sql<{ n: string }>(
        `select count(*) as n from "${h.schema}".organization_members where organization_id = $1 and roles @> '["owner"]'::jsonb`,
        [org.organization_id],
      );
      expect(Number(owners[0]!.n)).toBe(1);
    }
  });

  it('20 concurrent creates of one (user, wallet type): one wallet, one seed', async () => {
    const { user_id } = await latchkey.users.create(appId, {});
    const results = await Promise.all(
      Array.from({ length: 20 }, () => latchkey.wallets.create(appId, { user_id, wallet_type: 'ethereum' })),
    );
    expect(new Set(results.map((w) => w.id)).size).toBe(1);
    const rows = await h.sql<{ n: string }>(
      `select count(*) as n from "${h.schema}".wallets where user_id = $1`,
      [user_id],
    );
    expect(Number(rows[0]!.n)).toBe(1);
    const seeds = await h.sql<{ n: string }>(
      `select count(*) as n from "${h.schema}".seeds where user_id = $1`,
      [user_id],
    );
    expect(Number(seeds[0]!.n)).toBe(1);
    // Concurrent first wallets of other types share the one seed.
    await Promise.all(
      (['solana', 'bitcoin', 'DOT', 'XLM'] as const).map((wallet_type) =>
        latchkey.wallets.create(appId, { user_id, wallet_type }),
      ),
    );
    const after = await h.sql<{ n: string }>(
      `select count(distinct key_id) as n from "${h.schema}".wallets where user_id = $1`,
      [user_id],
    );
    expect(Number(after[0]!.n)).toBe(1);
  });

  it('a failing multi-write leaves nothing behind: a user whose phone is taken is not created', async () => {
    await latchkey.users.create(appId, { phone_number: '+14155550888' });
    await expect(
      latchkey.users.create(appId, { email: 'half@example.com', phone_number: '+14155550888' }),
    ).rejects.toMatchObject({
      errorType: 'duplicate_phone_number',
    });
    const rows = await h.sql(`select * from "${h.schema}".emails where address = 'half@example.com'`);
    expect(rows).toEqual([]);
  });
});
