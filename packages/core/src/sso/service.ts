import type { Kernel } from '../kernel.js';
import { type ProviderCalls, providerRuntimes } from '../oauth/service.js';
import type { OrganizationService } from '../organizations/service.js';
import type { SessionService } from '../sessions/service.js';
import { connectionService } from './connections.js';
import { requireSso } from './required.js';
import { ssoSignInService } from './sign-in.js';

export interface SsoOptions extends ProviderCalls {
  /** Where providers reach `/v1/auth/sso/callback`: the redirect URI every connection registers. */
  callbackUrl: string | undefined;
}

export type SsoService = ReturnType<typeof ssoService>;

/** Organizations' OpenID Connect connections and sign-in through them (docs/organizations.md). */
export function ssoService(
  k: Kernel,
  sessions: SessionService,
  organizations: Pick<OrganizationService, 'sessions' | 'knowSsoConnections'>,
  options: SsoOptions,
) {
  const runtimes = providerRuntimes(k.vault, options);
  // `sso_required`: no session becomes the organization's but one proven through its SSO.
  organizations.knowSsoConnections(
    async (appId, organizationId) =>
      (await k.storage.sso.findConnection(appId, { organization_id: organizationId }))?.id ?? null,
  );
  organizations.sessions.checkExchanges(async (organization, factors) => {
    if (!organization.settings.sso_required) return;
    requireSso(
      organization,
      await k.storage.sso.findConnection(organization.app_id, { organization_id: organization.id }),
      factors,
    );
  });
  return {
    connections: connectionService(k, runtimes),
    ...ssoSignInService(k, sessions, organizations.sessions, runtimes, { callbackUrl: options.callbackUrl }),
  };
}
