import {
  LatchkeyError,
  type OrganizationRecord,
  type SsoConnectionRecord,
  type SsoRepo,
} from '@latchkey/core';
import { copy } from './state.js';

/**
 * Organizations' SSO connections. A connection whose organization was deleted is never read
 * (Postgres deletes it with its organization; here the organization's absence hides it).
 */
export function memorySsoRepo(
  connections: Map<string, SsoConnectionRecord>,
  organizations: Map<string, OrganizationRecord>,
): SsoRepo {
  const live = (c: SsoConnectionRecord) => organizations.get(c.organization_id)?.app_id === c.app_id;
  const ofApp = (appId: string) => [...connections.values()].filter((c) => c.app_id === appId && live(c));
  const ofOrganization = (appId: string, organizationId: string) =>
    ofApp(appId).find((c) => c.organization_id === organizationId);

  /**
   * Refuses a domain another live connection of the App claims. Checked in the same synchronous
   * step as the write that follows it, so no other write can come between (as Postgres's key).
   */
  const checkDomains = (appId: string, connectionId: string, domains: readonly string[]) => {
    const others = ofApp(appId).filter((c) => c.id !== connectionId);
    const i = domains.findIndex((d) => others.some((c) => c.email_domains.includes(d)));
    if (i >= 0) throw new LatchkeyError('sso_email_domain_taken', undefined, { field: `email_domains.${i}` });
  };

  return {
    async insertConnection(connection) {
      if (organizations.get(connection.organization_id)?.app_id !== connection.app_id)
        throw new LatchkeyError('organization_not_found');
      if (ofOrganization(connection.app_id, connection.organization_id)) return { inserted: false };
      checkDomains(connection.app_id, connection.id, connection.email_domains);
      connections.set(connection.id, copy(connection));
      return { inserted: true };
    },
    async findConnection(appId, by) {
      let found: SsoConnectionRecord | undefined;
      if ('organization_id' in by) found = ofOrganization(appId, by.organization_id);
      else if ('slug' in by) {
        const organization = [...organizations.values()].find(
          (o) => o.app_id === appId && o.slug === by.slug,
        );
        found = organization ? ofOrganization(appId, organization.id) : undefined;
      } else found = ofApp(appId).find((c) => c.email_domains.includes(by.email_domain));
      return found ? copy(found) : null;
    },
    async getConnectionById(appId, connectionId) {
      const c = connections.get(connectionId);
      return c && c.app_id === appId && live(c) ? copy(c) : null;
    },
    async updateConnection(appId, organizationId, update) {
      const current = ofOrganization(appId, organizationId);
      if (!current) return null;
      if (update.email_domains) checkDomains(appId, current.id, update.email_domains);
      const next = { ...current, ...copy(update) };
      connections.set(current.id, next);
      return copy(next);
    },
    async deleteConnection(appId, organizationId) {
      const current = ofOrganization(appId, organizationId);
      if (!current) return null;
      connections.delete(current.id);
      return copy(current);
    },
  };
}
