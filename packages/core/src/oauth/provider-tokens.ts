import type { TokenEndpointResponse } from 'oauth4webapi';
import { utf8 } from '../crypto/encoding.js';
import type { KeyVault } from '../ports/key-vault.js';
import type { OAuthLinkRecord } from './repo.js';

/** The provider's tokens for one linked account, as `latchkey.oauth.providerTokens` gives them. */
export interface ProviderTokens {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  /** Unix seconds: when the access token expires, when the provider said. */
  expires_at?: number;
  scope?: string;
}

/** Sealed for the link: a copied blob opens for no other account or App. */
const context = (link: Pick<OAuthLinkRecord, 'app_id' | 'id'>) =>
  `oauth-provider-tokens:${link.app_id}:${link.id}`;

/**
 * Seals a token response. A refresh response may leave the refresh token out (the old one stays
 * valid): `keptRefreshToken` is carried over then.
 */
export function sealProviderTokens(
  vault: KeyVault,
  link: Pick<OAuthLinkRecord, 'app_id' | 'id'>,
  response: TokenEndpointResponse,
  now: number,
  keptRefreshToken?: string,
): Promise<string> {
  const refresh = response.refresh_token ?? keptRefreshToken;
  const tokens: ProviderTokens = {
    access_token: response.access_token,
    token_type: response.token_type,
    ...(refresh ? { refresh_token: refresh } : {}),
    ...(typeof response.expires_in === 'number' ? { expires_at: now + response.expires_in } : {}),
    ...(typeof response.scope === 'string' ? { scope: response.scope } : {}),
  };
  return vault.seal(utf8(JSON.stringify(tokens)), context(link));
}

export async function openProviderTokens(
  vault: KeyVault,
  link: Pick<OAuthLinkRecord, 'app_id' | 'id' | 'provider_tokens_sealed'>,
): Promise<ProviderTokens> {
  if (!link.provider_tokens_sealed) throw new TypeError('The link holds no provider tokens.');
  const opened = await vault.open(link.provider_tokens_sealed, context(link));
  return JSON.parse(new TextDecoder().decode(opened)) as ProviderTokens;
}
