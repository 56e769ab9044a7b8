import type { SsoConnectionRecord, Storage } from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { makeApp, NOW, uid } from './fixtures.js';
import { makeOrganization } from './suite-organizations.js';

export function makeSsoConnection(
  organization: { id: string; app_id: string },
  over: Partial<SsoConnectionRecord> = {},
): SsoConnectionRecord {
  return {
    id: uid('ssoconn'),
    app_id: organization.app_id,
    organization_id: organization.id,
    issuer: 'https://idp.example.com',
    client_id: 'client',
    client_secret_sealed: 'sealed-blob',
    client_secret_hint: 'blob',
    scopes: null,
    email_domains: [`${uid('d').toLowerCase().replace(/_/g, '-')}.com`],
    created_at: NOW,
    updated_at: NOW,
    ...over,
  };
}

/**
 * Organizations' SSO connections: one per organization however many inserts race, found by the
 * organization's id or slug or a claimed domain within its App only, and gone with the organization.
 */
export function ssoRepoCases(storage: () => Storage, parallelism = 1): void {
  const setup = async () => {
    const s = storage();
    const app = makeApp();
    await s.apps.insert(app);
    const organization = makeOrganization(app.id);
    await s.organizations.insert(organization);
    return { s, app, organization };
  };

  describe('sso connections', () => {
    it('stores one per organization, even under concurrent inserts', async () => {
      const { s, organization } = await setup();
      const racers = Math.max(10, parallelism * 2);
      const results = await Promise.all(
        Array.from({ length: racers }, () => s.sso.insertConnection(makeSsoConnection(organization))),
      );
      expect(results.filter((r) => r.inserted)).toHaveLength(1);
      await expect(
        s.sso.insertConnection(makeSsoConnection({ id: uid('org'), app_id: organization.app_id })),
      ).rejects.toMatchObject({ errorType: 'organization_not_found' });
    });

    it('finds by organization id, slug and domain within its App only; updates and deletes', async () => {
      const { s, app, organization } = await setup();
      const connection = makeSsoConnection(organization, { scopes: ['openid', 'email'] });
      await s.sso.insertConnection(connection);
      const domain = connection.email_domains[0] as string;
      for (const by of [
        { organization_id: organization.id },
        { slug: organization.slug },
        { email_domain: domain },
      ])
        expect(await s.sso.findConnection(app.id, by)).toEqual(connection);
      expect(await s.sso.getConnectionById(app.id, connection.id)).toEqual(connection);

      const other = makeApp();
      await s.apps.insert(other);
      for (const by of [
        { organization_id: organization.id },
        { slug: organization.slug },
        { email_domain: domain },
      ])
        expect(await s.sso.findConnection(other.id, by)).toBeNull();
      expect(await s.sso.getConnectionById(other.id, connection.id)).toBeNull();
      expect(
        await s.sso.updateConnection(other.id, organization.id, { client_id: 'x', updated_at: NOW }),
      ).toBeNull();
      expect(await s.sso.deleteConnection(other.id, organization.id)).toBeNull();

      const updated = await s.sso.updateConnection(app.id, organization.id, {
        client_id: 'new',
        scopes: null,
        email_domains: ['acme.org'],
        updated_at: NOW + 1,
      });
      expect(updated).toEqual({
        ...connection,
        client_id: 'new',
        scopes: null,
        email_domains: ['acme.org'],
        updated_at: NOW + 1,
      });
      expect(await s.sso.findConnection(app.id, { email_domain: domain })).toBeNull();
      expect(await s.sso.deleteConnection(app.id, organization.id)).toEqual(updated);
      expect(await s.sso.findConnection(app.id, { organization_id: organization.id })).toBeNull();
    });

    it('holds a domain to one connection of the App, even under concurrent inserts and updates', async () => {
      const { s, app, organization } = await setup();
      const racers = Math.max(10, parallelism * 2);
      const shared = `${uid('shared').toLowerCase().replace(/_/g, '-')}.com`;
      const organizations = [organization];
      for (let i = 1; i < racers; i++) {
        const o = makeOrganization(app.id);
        await s.organizations.insert(o);
        organizations.push(o);
      }
      const connections = organizations.map((o) =>
        makeSsoConnection(o, { email_domains: [`${o.id.toLowerCase().replace(/_/g, '-')}.com`, shared] }),
      );
      const inserted = await Promise.allSettled(connections.map((c) => s.sso.insertConnection(c)));
      const won = inserted.flatMap((r, i) => (r.status === 'fulfilled' ? [connections[i]!] : []));
      expect(won).toHaveLength(1);
      for (const r of inserted.filter((r) => r.status === 'rejected'))
        expect(r.reason).toMatchObject({ errorType: 'sso_email_domain_taken', field: 'email_domains.1' });
      const winner = won[0]!;
      expect((await s.sso.findConnection(app.id, { email_domain: shared }))?.id).toBe(winner.id);
      // A refused insert left nothing: not its connection, not its own domain.
      for (const c of connections.filter((c) => c !== winner)) {
        expect(await s.sso.getConnectionById(app.id, c.id)).toBeNull();
        expect(await s.sso.findConnection(app.id, { email_domain: c.email_domains[0]! })).toBeNull();
      }

      // The losers get connections without the domain, then race updates claiming it from the winner.
      const losers = connections.filter((c) => c !== winner);
      for (const c of losers) await s.sso.insertConnection({ ...c, email_domains: [] });
      const updated = await Promise.allSettled(
        losers.map((c) =>
          s.sso.updateConnection(app.id, c.organization_id, { email_domains: [shared], updated_at: NOW + 1 }),
        ),
      );
      for (const r of updated)
        expect(r).toMatchObject({
          status: 'rejected',
          reason: { errorType: 'sso_email_domain_taken', field: 'email_domains.0' },
        });
      // The winner keeps it while changing its list; once it lets go, one of the others races in.
      await s.sso.updateConnection(app.id, winner.organization_id, {
        email_domains: [shared, 'kept-too.com'],
        updated_at: NOW + 1,
      });
      expect((await s.sso.findConnection(app.id, { email_domain: 'kept-too.com' }))?.id).toBe(winner.id);
      // Another App's connection may claim it all the same: a domain is one connection's per App.
      const other = makeApp();
      await s.apps.insert(other);
      const elsewhere = makeOrganization(other.id);
      await s.organizations.insert(elsewhere);
      await s.sso.insertConnection(makeSsoConnection(elsewhere, { email_domains: ['kept-too.com'] }));
      expect((await s.sso.findConnection(other.id, { email_domain: 'kept-too.com' }))?.app_id).toBe(other.id);
      await s.sso.deleteConnection(app.id, winner.organization_id);
      const reclaimed = await Promise.allSettled(
        losers.map((c) =>
          s.sso.updateConnection(app.id, c.organization_id, { email_domains: [shared], updated_at: NOW + 2 }),
        ),
      );
      expect(reclaimed.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const holder = await s.sso.findConnection(app.id, { email_domain: shared });
      expect(holder?.email_domains).toEqual([shared]);
      // Its organization's deletion lets it go too.
      await s.organizations.delete(app.id, holder!.organization_id);
      expect(await s.sso.findConnection(app.id, { email_domain: shared })).toBeNull();
    });

    it('goes with its organization', async () => {
      const { s, app, organization } = await setup();
      const connection = makeSsoConnection(organization);
      await s.sso.insertConnection(connection);
      await s.organizations.delete(app.id, organization.id);
      expect(await s.sso.getConnectionById(app.id, connection.id)).toBeNull();
      expect(
        await s.sso.findConnection(app.id, { email_domain: connection.email_domains[0] as string }),
      ).toBeNull();
    });
  });
}
