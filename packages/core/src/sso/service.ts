import type { Kernel } from '../kernel.js';
import { type ProviderCalls, providerRuntimes } from '../oauth/providers.js';
import type { SessionService } from '../sessions/service.js';
import { connectionService } from './connections.js';
import { ssoSignInService } from './sign-in.js';

export interface SsoOptions extends ProviderCalls {
  /** Where providers reach `/v1/auth/sso/callback`: the redirect URI every connection registers. */
  callbackUrl: string | undefined;
}

export type SsoService = ReturnType<typeof ssoService>;

/** Organizations' OpenID Connect connections and sign-in through them (docs/organizations.md). */
export function ssoService(k: Kernel, sessions: SessionService, options: SsoOptions) {
  const runtimes = providerRuntimes(k.vault, options);
  return {
    connections: connectionService(k, runtimes),
    ...ssoSignInService(k, sessions, runtimes, { callbackUrl: options.callbackUrl }),
  };
}
