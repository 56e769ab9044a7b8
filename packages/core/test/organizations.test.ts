import { describe, expect, it } from 'vitest';
import { expectErrorShape } from './helpers.js';
import { expectError, organizationTestbed } from './organization-testbed.js';
import { storageBackends } from './storage-backends.js';

describe.each(storageBackends())('organizations on $name', (backend) => {
  const bed = organizationTestbed(backend, {
    organizations: { roles: { billing: ['invoices:read', 'invoices:write'] } },
  });
  const { events } = bed;

  let n = 0;
  const freshSlug = () => `acme-${++n}-${Math.random().toString(36).slice(2, 8)}`;
  const newUser = async (app = bed.t) => {
    const res = await app.call('POST', '/v1/auth/users', {});
    expect(res.status).toBe(200);
    return res.body.user_id as string;
  };
  const createOrg = async (body: Record<string, unknown> = {}, app = bed.t) => {
    const res = await app.call('POST', '/v1/organizations', { name: 'Acme', slug: freshSlug(), ...body });
    expect(res.status).toBe(200);
    return res.body as { organization_id: string; slug: string; [k: string]: unknown };
  };
  const members = (orgId: string, app = bed.t) => app.call('GET', `/v1/organizations/${orgId}/members`);
  const addMember = (orgId: string, body: unknown, app = bed.t) =>
    app.call('POST', `/v1/organizations/${orgId}/members`, body);

  it('creates an organization with its owner, reads, lists, changes and deletes it', async () => {
    const owner = await newUser();
    const org = await createOrg({
      name: 'Acme Inc',
      owner_user_id: owner,
      allowed_email_domains: ['Acme.com', 'acme.com', 'acme.co.uk'],
      settings: { default_role: 'billing', allowed_sign_in_methods: ['password', 'sso'] },
    });
    expect(org).toMatchObject({
      organization_id: expect.stringMatching(/^org_/),
      name: 'Acme Inc',
      allowed_email_domains: ['acme.com', 'acme.co.uk'],
      settings: {
        who_can_invite: 'admins',
        default_role: 'billing',
        allowed_sign_in_methods: ['password', 'sso'],
        sso_required: false,
      },
    });
    const id = org.organization_id;
    expect((await bed.t.call('GET', `/v1/organizations/${id}`)).body).toEqual(org);

    const listed = await members(id);
    expect(listed.status).toBe(200);
    expect(listed.body.members).toEqual([
      expect.objectContaining({ user_id: owner, roles: ['owner'], permissions: ['*'] }),
    ]);

    const mine = await bed.t.call('GET', `/v1/organizations?user_id=${owner}`);
    expect(mine.body).toEqual({ organizations: [org], next_cursor: null });

    const patched = await bed.t.call('PATCH', `/v1/organizations/${id}`, {
      name: 'Acme Corp',
      settings: { who_can_invite: 'members' },
    });
    expect(patched.status).toBe(200);
    // Settings not sent keep their values.
    expect(patched.body.settings).toMatchObject({ who_can_invite: 'members', default_role: 'billing' });
    expect(patched.body.name).toBe('Acme Corp');

    const removed = await bed.t.call('DELETE', `/v1/organizations/${id}`);
    expect(removed.body).toEqual({ organization_id: id });
    expectError(await bed.t.call('GET', `/v1/organizations/${id}`), 404, 'organization_not_found');
    expectError(await members(id), 404, 'organization_not_found');
    expect((await bed.t.call('GET', `/v1/organizations?user_id=${owner}`)).body.organizations).toEqual([]);

    const types = events.filter((e) => e.data.organization_id === id).map((e) => e.type);
    expect(types).toEqual([
      'organization.created',
      'organization.member.added',
      'organization.updated',
      'organization.deleted',
    ]);
    const stored = await bed.storage.events.list(bed.t.app_id, { limit: 1000 });
    expect(
      stored
        .filter((e) => e.data.organization_id === id)
        .map((e) => e.type)
        .sort(),
    ).toEqual([...types].sort());
  });

  it('keeps slugs unique per App: 409 on a clash, by create and by rename; another App may reuse one', async () => {
    const a = await createOrg();
    const b = await createOrg();
    const clash = await bed.t.call('POST', '/v1/organizations', { name: 'Again', slug: a.slug });
    expectError(clash, 409, 'organization_slug_taken');
    expect(expectErrorShape(clash).error_field).toBe('slug');
    expectError(
      await bed.t.call('PATCH', `/v1/organizations/${b.organization_id}`, { slug: a.slug }),
      409,
      'organization_slug_taken',
    );
    // Renaming to its own slug is no clash.
    expect(
      (await bed.t.call('PATCH', `/v1/organizations/${a.organization_id}`, { slug: a.slug })).status,
    ).toBe(200);
    expect((await bed.other.call('POST', '/v1/organizations', { name: 'Other', slug: a.slug })).status).toBe(
      200,
    );
    // A failed create left nothing behind.
    const all = await bed.t.call('GET', '/v1/organizations?limit=1000');
    expect(all.body.organizations.filter((o: { slug: string }) => o.slug === a.slug)).toHaveLength(1);
  });

  it('refuses bad input with a documented 400, never a 500', async () => {
    const org = await createOrg();
    const id = org.organization_id;
    const user = await newUser();
    const bad: Array<[string, string, unknown, string]> = [
      ['POST', '/v1/organizations', {}, 'missing_field'],
      ['POST', '/v1/organizations', { name: 'x', slug: 'Has Caps' }, 'invalid_field'],
      ['POST', '/v1/organizations', { name: 'x', slug: '-dash' }, 'invalid_field'],
      ['POST', '/v1/organizations', { name: '   ', slug: 'ok' }, 'invalid_field'],
      ['POST', '/v1/organizations', { name: 'x', slug: 'ok', extra: 1 }, 'unknown_field'],
      [
        'POST',
        '/v1/organizations',
        { name: 'x', slug: 'ok', allowed_email_domains: ['com'] },
        'invalid_field',
      ],
      [
        'POST',
        '/v1/organizations',
        { name: 'x', slug: 'ok', allowed_email_domains: ['a b.com'] },
        'invalid_field',
      ],
      [
        'POST',
        '/v1/organizations',
        { name: 'x', slug: 'ok', settings: { sso_required: true } },
        'invalid_field',
      ],
      [
        'POST',
        '/v1/organizations',
        { name: 'x', slug: 'ok', settings: { default_role: 'nope' } },
        'unknown_role',
      ],
      [
        'POST',
        '/v1/organizations',
        { name: 'x', slug: 'ok', settings: { who_can_invite: 'all' } },
        'invalid_field',
      ],
      ['POST', '/v1/organizations', { name: 'x', slug: 'ok', settings: { colour: 'red' } }, 'unknown_field'],
      ['POST', '/v1/organizations', { name: 1, slug: 'ok' }, 'invalid_field'],
      ['PATCH', `/v1/organizations/${id}`, { settings: { default_role: 'ghost' } }, 'unknown_role'],
      ['PATCH', `/v1/organizations/${id}`, { slug: 'x'.repeat(65) }, 'invalid_field'],
      ['GET', '/v1/organizations?limit=0', undefined, 'invalid_field'],
      ['GET', '/v1/organizations?limit=abc', undefined, 'invalid_field'],
      ['GET', '/v1/organizations?color=red', undefined, 'unknown_field'],
      ['POST', `/v1/organizations/${id}/members`, {}, 'missing_field'],
      ['POST', `/v1/organizations/${id}/members`, { user_id: user, email: 'a@b.com' }, 'invalid_field'],
      ['POST', `/v1/organizations/${id}/members`, { email: 'not-an-email' }, 'invalid_email'],
      ['POST', `/v1/organizations/${id}/members`, { user_id: user, roles: [] }, 'invalid_field'],
      ['POST', `/v1/organizations/${id}/members`, { user_id: user, roles: ['Owner!'] }, 'invalid_field'],
      [
        'POST',
        `/v1/organizations/${id}/members`,
        { user_id: user, roles: ['member', 'auditor'] },
        'unknown_role',
      ],
      ['POST', `/v1/organizations/${id}/members`, { user_id: user, roles: 'owner' }, 'invalid_field'],
      ['POST', `/v1/organizations/${id}/members`, [1, 2], 'invalid_field'],
    ];
    for (const [method, path, body, type] of bad) {
      const res = await bed.t.call(method, path, body);
      expect({ method, path, body, status: res.status, type: res.body?.error_type }).toEqual({
        method,
        path,
        body,
        status: 400,
        type,
      });
      expectErrorShape(res);
    }
    const unknownRole = await addMember(id, { user_id: user, roles: ['member', 'auditor'] });
    expect(expectErrorShape(unknownRole).error_field).toBe('roles.1');
    // A public token cannot manage organizations.
    expectError(
      await bed.t.call('GET', '/v1/organizations', undefined, bed.t.public_token),
      403,
      'secret_key_required',
    );
    expectError(
      await bed.t.call('POST', '/v1/organizations', { name: 'x', slug: 'ok', owner_user_id: 'user_nope' }),
      404,
      'user_not_found',
    );
    // Nothing was created by the refused owner.
    expect(
      (await bed.t.call('GET', '/v1/organizations?limit=1000')).body.organizations.map(
        (o: { slug: string }) => o.slug,
      ),
    ).not.toContain('ok');
  });

  it('adds members by id or email (one membership per user), pages them, changes and removes them', async () => {
    const owner = await newUser();
    const { organization_id: id } = await createOrg({ owner_user_id: owner });
    const user = await newUser();
    const added = await addMember(id, { user_id: user, roles: ['billing', 'admin', 'billing'] });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({
      member_id: expect.stringMatching(/^orgmember_/),
      user_id: user,
      roles: ['billing', 'admin'],
      permissions: [
        'invoices:read',
        'invoices:write',
        'members:invite',
        'members:read',
        'members:write',
        'organization:read',
        'organization:write',
      ],
      user_created: false,
    });
    expectError(await addMember(id, { user_id: user }), 409, 'organization_member_exists');
    expectError(await addMember(id, { user_id: 'user_missing' }), 404, 'user_not_found');

    const byEmail = await addMember(id, { email: 'New.Person@Example.com' });
    expect(byEmail.body).toMatchObject({
      roles: ['member'],
      permissions: ['members:read', 'organization:read'],
      user_created: true,
    });
    const again = await addMember(id, { email: 'new.person@example.com' });
    expectError(again, 409, 'organization_member_exists');
    const found = await bed.t.call('GET', `/v1/auth/users/${byEmail.body.user_id}`);
    expect(found.body.emails[0].email).toBe('new.person@example.com');

    // Pages: 3 members, two at a time.
    const first = await bed.t.call('GET', `/v1/organizations/${id}/members?limit=2`);
    expect(first.body.members).toHaveLength(2);
    const second = await bed.t.call(
      'GET',
      `/v1/organizations/${id}/members?limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(second.body).toMatchObject({ next_cursor: null });
    expect(
      [...first.body.members, ...second.body.members].map((m: { user_id: string }) => m.user_id).sort(),
    ).toEqual([owner, user, byEmail.body.user_id].sort());

    const memberId = added.body.member_id;
    const changed = await bed.t.call('PATCH', `/v1/organizations/${id}/members/${memberId}`, {
      roles: ['member'],
    });
    expect(changed.body).toMatchObject({
      roles: ['member'],
      permissions: ['members:read', 'organization:read'],
    });
    expect((await bed.t.call('GET', `/v1/organizations/${id}/members/${memberId}`)).body.roles).toEqual([
      'member',
    ]);
    expect((await bed.t.call('DELETE', `/v1/organizations/${id}/members/${memberId}`)).body).toEqual({
      member_id: memberId,
      organization_id: id,
    });
    expectError(
      await bed.t.call('GET', `/v1/organizations/${id}/members/${memberId}`),
      404,
      'organization_member_not_found',
    );
    expectError(
      await bed.t.call('DELETE', `/v1/organizations/${id}/members/${memberId}`),
      404,
      'organization_member_not_found',
    );
    // The user stays, and may join again.
    expect((await addMember(id, { user_id: user })).status).toBe(200);

    const memberEvents = events
      .filter((e) => e.data.member_id === memberId)
      .map((e) => [e.type, e.data.roles]);
    expect(memberEvents).toEqual([
      ['organization.member.added', ['billing', 'admin']],
      ['organization.member.updated', ['member']],
      ['organization.member.removed', ['member']],
    ]);
  });

  it('keeps at least one owner: the last cannot be demoted or removed (409 last_owner)', async () => {
    const [a, b] = [await newUser(), await newUser()];
    const { organization_id: id } = await createOrg({ owner_user_id: a });
    const ownerA = (await members(id)).body.members[0].member_id;
    const path = (m: string) => `/v1/organizations/${id}/members/${m}`;
    expectError(await bed.t.call('PATCH', path(ownerA), { roles: ['admin'] }), 409, 'last_owner');
    expectError(await bed.t.call('DELETE', path(ownerA)), 409, 'last_owner');
    // Still an owner after the refusals; another role beside owner is fine.
    expect((await bed.t.call('PATCH', path(ownerA), { roles: ['owner', 'billing'] })).status).toBe(200);

    const ownerB = (await addMember(id, { user_id: b, roles: ['owner'] })).body.member_id;
    expect((await bed.t.call('PATCH', path(ownerA), { roles: ['admin'] })).status).toBe(200);
    expectError(await bed.t.call('DELETE', path(ownerB)), 409, 'last_owner');
    expect((await bed.t.call('DELETE', path(ownerA))).status).toBe(200);
    const left = (await members(id)).body.members;
    expect(left.map((m: { member_id: string; roles: string[] }) => [m.member_id, m.roles])).toEqual([
      [ownerB, ['owner']],
    ]);
  });

  it('20 concurrent demotions and removals of two owners leave exactly one owner', async () => {
    const [a, b] = [await newUser(), await newUser()];
    const { organization_id: id } = await createOrg({ owner_user_id: a });
    await addMember(id, { user_id: b, roles: ['owner'] });
    const both = (await members(id)).body.members.map((m: { member_id: string }) => m.member_id) as string[];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const target = both[i % 2]!;
        const path = `/v1/organizations/${id}/members/${target}`;
        return i % 4 < 2 ? bed.t.call('PATCH', path, { roles: ['member'] }) : bed.t.call('DELETE', path);
      }),
    );
    for (const res of results) {
      if (res.status !== 200) expect([404, 409]).toContain(res.status);
    }
    const owners = (await members(id)).body.members.filter((m: { roles: string[] }) =>
      m.roles.includes('owner'),
    );
    expect(owners).toHaveLength(1);
    expect(results.filter((r) => r.status === 409).length).toBeGreaterThan(0);
  });

  it("answers another App's organization and member with 404, and lists only its own", async () => {
    const owner = await newUser();
    const org = await createOrg({ owner_user_id: owner });
    const id = org.organization_id;
    const memberId = (await members(id)).body.members[0].member_id;
    const theirs = await createOrg({}, bed.other);
    const theirUser = await newUser(bed.other);

    expectError(await bed.other.call('GET', `/v1/organizations/${id}`), 404, 'organization_not_found');
    expectError(
      await bed.other.call('PATCH', `/v1/organizations/${id}`, { name: 'Mine now' }),
      404,
      'organization_not_found',
    );
    expectError(await bed.other.call('DELETE', `/v1/organizations/${id}`), 404, 'organization_not_found');
    expectError(await members(id, bed.other), 404, 'organization_not_found');
    expectError(await addMember(id, { user_id: theirUser }, bed.other), 404, 'organization_not_found');
    for (const [method, body] of [['GET'], ['PATCH', { roles: ['member'] }], ['DELETE']] as const) {
      expectError(
        await bed.other.call(method, `/v1/organizations/${id}/members/${memberId}`, body),
        404,
        'organization_member_not_found',
      );
    }
    // The member through another organization of the same App: not found either.
    expectError(
      await bed.t.call('GET', `/v1/organizations/${(await createOrg()).organization_id}/members/${memberId}`),
      404,
      'organization_member_not_found',
    );
    // A user of another App cannot be made a member.
    expectError(await addMember(id, { user_id: theirUser }), 404, 'user_not_found');
    const listed = await bed.other.call('GET', '/v1/organizations?limit=1000');
    expect(listed.body.organizations.map((o: { organization_id: string }) => o.organization_id)).toContain(
      theirs.organization_id,
    );
    expect(
      listed.body.organizations.map((o: { organization_id: string }) => o.organization_id),
    ).not.toContain(id);
    expect((await bed.other.call('GET', `/v1/organizations?user_id=${owner}`)).body.organizations).toEqual(
      [],
    );
    // Unchanged by the attempts.
    expect((await bed.t.call('GET', `/v1/organizations/${id}`)).body).toEqual(org);
    expect((await members(id)).body.members).toHaveLength(1);
  });

  it('pages organizations by cursor, and a user’s organizations only', async () => {
    const user = await newUser();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createOrg({ owner_user_id: user })).organization_id);
    await createOrg();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = `/v1/organizations?user_id=${user}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await bed.t.call('GET', q);
      expect(page.status).toBe(200);
      seen.push(...page.body.organizations.map((o: { organization_id: string }) => o.organization_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].sort());
  });

  it('reads App roles from settings: built-in names cannot be redefined; 50 roles of 100 permissions at most', async () => {
    const patch = (roles: unknown) => bed.t.call('PATCH', '/v1/app/settings', { organizations: { roles } });
    const refused = async (roles: unknown, field: string) => {
      const res = await patch(roles);
      expect(res.status).toBe(400);
      expect([expectErrorShape(res).error_type, res.body.error_field]).toEqual(['invalid_field', field]);
    };
    await refused({ owner: ['x:y'] }, 'organizations.roles.owner');
    await refused({ billing: ['Invoices Read'] }, 'organizations.roles.billing.0');
    const perms = (n: number) => ({ big: Array.from({ length: n }, (_, i) => `p${i}:read`) });
    expect((await patch(perms(100))).status).toBe(200);
    await refused(perms(101), 'organizations.roles.big');
    // A merge patch: null removes a role. With billing, 49 more make the 50 allowed.
    expect((await patch({ big: null })).status).toBe(200);
    const names = Array.from({ length: 49 }, (_, i) => `role${i}`);
    expect((await patch(Object.fromEntries(names.map((r) => [r, ['a:b']])))).status).toBe(200);
    await refused({ one_more: ['a:b'] }, 'organizations.roles');
    expect((await patch(Object.fromEntries(names.map((r) => [r, null])))).status).toBe(200);
    const app = await bed.t.call('GET', '/v1/app');
    expect(app.body.settings.organizations.roles).toEqual({ billing: ['invoices:read', 'invoices:write'] });
  });
});
