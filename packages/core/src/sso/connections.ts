import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { OAuthProviderSettings } from '../oauth/schema.js';
import { type ProviderRuntimes, sealProviderSecrets } from '../oauth/service.js';
import { ssoConnectionIdOf, ssoProviderId } from '../shared/factor.js';
import type { SsoConnectionRecord, SsoConnectionUpdate } from './repo.js';
import type { CreateSsoConnectionRequest, SsoConnectionView, UpdateSsoConnectionRequest } from './schema.js';

/**
 * A connection's name among the App's providers: its secret is sealed under it (so a blob copied
 * to another connection does not open) and its flows and links carry it as their provider id.
 */
export const providerKey = ssoProviderId;
export const connectionIdOf = ssoConnectionIdOf;

/** The connection as the OAuth machinery reads an App's OpenID Connect provider. */
export const asProvider = (c: SsoConnectionRecord): OAuthProviderSettings => ({
  type: 'oidc',
  issuer: c.issuer,
  client_id: c.client_id,
  client_secret_sealed: c.client_secret_sealed,
  client_secret_hint: c.client_secret_hint,
  ...(c.scopes ? { scopes: c.scopes } : {}),
  // The organization vouches for its provider: its verified emails name the App's users.
  link_by_verified_email: true,
  store_tokens: false,
});

export const connectionView = (c: SsoConnectionRecord): SsoConnectionView => ({
  connection_id: c.id,
  organization_id: c.organization_id,
  issuer: c.issuer,
  client_id: c.client_id,
  client_secret_hint: c.client_secret_hint,
  scopes: c.scopes,
  email_domains: c.email_domains,
  created_at: c.created_at,
  updated_at: c.updated_at,
});

/** Organizations' connections: written by the App's backend (secret key), read back without the secret. */
export function connectionService(k: Kernel, runtimes: ProviderRuntimes) {
  /** Sealed exactly as an App's OAuth provider secret is (oauth/provider-secrets.ts). */
  async function seal(appId: string, connectionId: string, secret: string) {
    const key = providerKey(connectionId);
    const stored = await sealProviderSecrets(
      k.vault,
      appId,
      {
        [key]: {
          type: 'oidc',
          issuer: 'https://sealing.invalid',
          client_id: '-',
          client_secret: secret,
          store_tokens: false,
        },
      },
      undefined,
    );
    const sealed = stored[key] as { client_secret_sealed?: string; client_secret_hint?: string };
    if (!sealed.client_secret_sealed || sealed.client_secret_hint === undefined)
      throw new TypeError('A written secret is always sealed.');
    return {
      client_secret_sealed: sealed.client_secret_sealed,
      client_secret_hint: sealed.client_secret_hint,
    };
  }

  /** Discovery read and checked as an OAuth provider's is, so a wrong issuer fails the write, not a sign-in. */
  const validate = (c: SsoConnectionRecord) =>
    runtimes.runtime(c.app_id, providerKey(c.id), asProvider(c), k.now());

  async function mustGetOrganization(appId: string, organizationId: string) {
    const organization = await k.storage.organizations.get(appId, organizationId);
    if (!organization) throw new LatchkeyError('organization_not_found');
    return organization;
  }

  async function mustGet(appId: string, organizationId: string) {
    await mustGetOrganization(appId, organizationId);
    const connection = await k.storage.sso.findConnection(appId, { organization_id: organizationId });
    if (!connection) throw new LatchkeyError('sso_connection_not_found');
    return connection;
  }

  return {
    async create(appId: string, organizationId: string, input: CreateSsoConnectionRequest) {
      await mustGetOrganization(appId, organizationId);
      // One connection per domain in the App (`email_domain` at start names one organization):
      // the repo refuses a claimed domain with the write itself, so concurrent writes cannot race.
      const domains = input.email_domains ?? [];
      const now = k.now();
      const id = k.id('ssoconn');
      const connection: SsoConnectionRecord = {
        id,
        app_id: appId,
        organization_id: organizationId,
        issuer: input.issuer,
        client_id: input.client_id,
        ...(await seal(appId, id, input.client_secret)),
        scopes: input.scopes ?? null,
        email_domains: domains,
        created_at: now,
        updated_at: now,
      };
      await validate(connection);
      if (!(await k.storage.sso.insertConnection(connection)).inserted)
        throw new LatchkeyError('sso_connection_exists');
      return connectionView(connection);
    },

    async get(appId: string, organizationId: string) {
      return connectionView(await mustGet(appId, organizationId));
    },

    /** Changes what the request names; a new issuer or client is discovered and checked first. */
    async update(appId: string, organizationId: string, input: UpdateSsoConnectionRequest) {
      const current = await mustGet(appId, organizationId);
      const update: SsoConnectionUpdate = {
        ...(input.issuer === undefined ? {} : { issuer: input.issuer }),
        ...(input.client_id === undefined ? {} : { client_id: input.client_id }),
        ...(input.client_secret === undefined ? {} : await seal(appId, current.id, input.client_secret)),
        ...(input.scopes === undefined ? {} : { scopes: input.scopes }),
        ...(input.email_domains === undefined ? {} : { email_domains: input.email_domains }),
        updated_at: k.now(),
      };
      if (input.issuer !== undefined || input.client_id !== undefined)
        await validate({ ...current, ...update });
      const updated = await k.storage.sso.updateConnection(appId, organizationId, update);
      if (!updated) throw new LatchkeyError('sso_connection_not_found');
      return connectionView(updated);
    },

    /** Removes the connection, unless the organization requires SSO (its members could not sign in). */
    async delete(appId: string, organizationId: string) {
      const organization = await mustGetOrganization(appId, organizationId);
      if (organization.settings.sso_required) throw new LatchkeyError('sso_connection_in_use');
      const removed = await k.storage.sso.deleteConnection(appId, organizationId);
      if (!removed) throw new LatchkeyError('sso_connection_not_found');
      return { connection_id: removed.id, organization_id: removed.organization_id };
    },
  };
}
