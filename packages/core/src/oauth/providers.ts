import { importPKCS8, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { LatchkeyError } from '../errors.js';
import type { KeyVault } from '../ports/key-vault.js';
import { isPublicHost } from '../shared/public-host.js';
import { openProviderSecret } from './provider-secrets.js';
import type { OAuthProviderSettings, OAuthProviderType } from './schema.js';

/** Who the provider says signed in: its issuer and stable subject name the identity. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  email_verified: boolean;
}

/** What calling a provider needs, beyond its settings: the operator's choices. */
export interface ProviderCalls {
  allowInsecure: boolean;
  fetch: typeof fetch | undefined;
  timeoutMs: number;
}

/** One provider ready to call: its server's metadata, the client, and how its identity is read. */
export interface ProviderRuntime {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  auth: oauth.ClientAuth;
  /** OpenID Connect (an ID token and a nonce) or plain OAuth 2.0 (the identity from an API). */
  oidc: boolean;
  scopes: string[];
  /** Extra authorization request parameters (Apple's form_post). */
  params: Record<string, string>;
  linkByVerifiedEmail: boolean;
  /** A plain OAuth 2.0 provider's identity, read from its API with the access token. */
  readIdentity?: (accessToken: string) => Promise<ProviderIdentity>;
  /**
   * Microsoft's multi-tenant endpoints: the issuer an ID token must carry depends on the tenant
   * it names (`tid`), so the metadata to check it against is the template's, for that tenant.
   */
  tenantServer?: (tid: string) => oauth.AuthorizationServer;
}

interface Preset {
  scopes: string[];
  linkByVerifiedEmail: boolean;
}

const PRESETS: Record<OAuthProviderType, Preset> = {
  oidc: { scopes: ['openid', 'email', 'profile'], linkByVerifiedEmail: false },
  // These providers verify the addresses they vouch for themselves.
  google: { scopes: ['openid', 'email', 'profile'], linkByVerifiedEmail: true },
  microsoft: { scopes: ['openid', 'email', 'profile'], linkByVerifiedEmail: true },
  apple: { scopes: ['openid', 'email', 'name'], linkByVerifiedEmail: true },
  github: { scopes: ['read:user', 'user:email'], linkByVerifiedEmail: false },
  discord: { scopes: ['identify', 'email'], linkByVerifiedEmail: false },
};

const APPLE_ISSUER = 'https://appleid.apple.com';

/**
 * The issuer Microsoft's discovery documents name: a template for the multi-tenant endpoints
 * (every work or school tenant signs its own ID tokens), the consumer tenant for `consumers`.
 */
const TENANT_PLACEHOLDER = '{tenantid}';
const MICROSOFT_ISSUERS: Record<string, string> = {
  common: `https://login.microsoftonline.com/${TENANT_PLACEHOLDER}/v2.0`,
  organizations: `https://login.microsoftonline.com/${TENANT_PLACEHOLDER}/v2.0`,
  consumers: 'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0',
};
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Per tenant, the template's metadata with the tenant's issuer, each kept (oauth4webapi caches a
 * JWKS per metadata object, so a tenant's sign-ins share one fetch).
 */
function tenantServers(template: oauth.AuthorizationServer) {
  const byTenant = new Map<string, oauth.AuthorizationServer>();
  return (tid: string): oauth.AuthorizationServer => {
    if (!TENANT_ID.test(tid)) throw providerError('the ID token names no tenant');
    let as = byTenant.get(tid);
    if (!as) {
      if (byTenant.size >= 1000) byTenant.clear();
      as = { ...template, issuer: template.issuer.replace(TENANT_PLACEHOLDER, tid) };
      byTenant.set(tid, as);
    }
    return as;
  };
}
/** How long discovered metadata is trusted before it is read again (JWKS follow their own keys). */
const DISCOVERY_SECONDS = 3600;

const providerError = (detail: string, cause?: unknown) =>
  new LatchkeyError('oauth_provider_error', `The provider could not complete the sign-in: ${detail}`, {
    cause,
  });

/**
 * Builds providers' runtimes, remembering each issuer's discovered metadata: the metadata object
 * is what oauth4webapi caches the issuer's JWKS on, so one fetch serves until its keys rotate.
 */
export function providerRuntimes(vault: KeyVault, calls: ProviderCalls) {
  const discovered = new Map<string, { as: oauth.AuthorizationServer; until: number }>();

  /** The options of every request to a provider: its fetch, its deadline, http where allowed. */
  const custom = calls.fetch;
  const requestOptions = () => ({
    ...(custom
      ? { [oauth.customFetch]: (url: string, init: object) => custom(url, init as RequestInit) }
      : {}),
    ...(calls.allowInsecure ? { [oauth.allowInsecureRequests]: true } : {}),
    signal: AbortSignal.timeout(calls.timeoutMs),
  });

  /** https always; http only where the operator allows it and only to a loopback or private host. */
  function checkUrl(raw: string | undefined, what: string): void {
    if (raw === undefined) return;
    const url = new URL(raw);
    if (url.protocol === 'https:') return;
    if (url.protocol === 'http:' && calls.allowInsecure && !isPublicHost(url.hostname)) return;
    throw new LatchkeyError(
      'oauth_provider_misconfigured',
      `The provider's ${what} (${url.origin}) is not https${calls.allowInsecure ? ' and not on a loopback or private address' : '; this server does not allow http providers (oauth.allowInsecureIssuers)'}.`,
    );
  }

  function checkEndpoints(as: oauth.AuthorizationServer): void {
    checkUrl(as.issuer, 'issuer');
    checkUrl(as.authorization_endpoint, 'authorization endpoint');
    checkUrl(as.token_endpoint, 'token endpoint');
    checkUrl(as.jwks_uri, 'JWKS');
    checkUrl(as.userinfo_endpoint, 'UserInfo endpoint');
  }

  async function discover(
    issuer: string,
    now: number,
    expected = issuer,
  ): Promise<oauth.AuthorizationServer> {
    const known = discovered.get(issuer);
    if (known && known.until > now) return known.as;
    checkUrl(issuer, 'issuer');
    const url = new URL(issuer);
    let as: oauth.AuthorizationServer;
    try {
      as = await oauth.processDiscoveryResponse(
        new URL(expected),
        await oauth.discoveryRequest(url, requestOptions()),
      );
    } catch (error) {
      throw providerError('its OpenID Connect discovery document could not be read', error);
    }
    checkEndpoints(as);
    if (!as.authorization_endpoint || !as.token_endpoint)
      throw providerError('its discovery document names no authorization or token endpoint');
    discovered.set(issuer, { as, until: now + DISCOVERY_SECONDS });
    return as;
  }

  async function clientAuth(
    appId: string,
    providerId: string,
    p: OAuthProviderSettings,
    as: oauth.AuthorizationServer,
  ): Promise<oauth.ClientAuth> {
    if (p.type === 'apple') {
      const key = await openProviderSecret(vault, appId, providerId, p, 'private_key');
      if (!key)
        throw new LatchkeyError('oauth_provider_misconfigured', 'The Apple provider has no private_key.');
      return oauth.ClientSecretPost(await appleClientSecret(p, key));
    }
    const secret = await openProviderSecret(vault, appId, providerId, p, 'client_secret');
    // No secret: a public client, held to PKCE alone (which every flow here uses).
    if (!secret) return oauth.None();
    const methods = as.token_endpoint_auth_methods_supported;
    // GitHub and Discord take the secret in the form; OIDC servers say which they take.
    const post =
      p.type === 'github' ||
      p.type === 'discord' ||
      (methods !== undefined &&
        !methods.includes('client_secret_basic') &&
        methods.includes('client_secret_post'));
    return post ? oauth.ClientSecretPost(secret) : oauth.ClientSecretBasic(secret);
  }

  async function serverOf(p: OAuthProviderSettings, now: number): Promise<oauth.AuthorizationServer> {
    const issuer = discoveredIssuer(p);
    if (issuer !== undefined)
      return discover(issuer, now, p.type === 'microsoft' ? (MICROSOFT_ISSUERS[p.tenant] ?? issuer) : issuer);
    switch (p.type) {
      case 'github': {
        const base = (p.base_url ?? 'https://github.com').replace(/\/+$/, '');
        const as = {
          issuer: new URL(base).origin,
          authorization_endpoint: `${base}/login/oauth/authorize`,
          token_endpoint: `${base}/login/oauth/access_token`,
        };
        checkEndpoints(as);
        return as;
      }
      default:
        return {
          issuer: 'https://discord.com',
          authorization_endpoint: 'https://discord.com/oauth2/authorize',
          token_endpoint: 'https://discord.com/api/oauth2/token',
        };
    }
  }

  /** GET a JSON document from a provider's API with the user's access token. */
  async function apiGet(accessToken: string, url: string): Promise<unknown> {
    checkUrl(url, 'API');
    const headers = new Headers({ accept: 'application/json', 'user-agent': 'latchkey' });
    let response: Response;
    try {
      response = await oauth.protectedResourceRequest(
        accessToken,
        'GET',
        new URL(url),
        headers,
        null,
        requestOptions(),
      );
    } catch (error) {
      throw providerError(`its API (${new URL(url).pathname}) could not be reached`, error);
    }
    if (!response.ok) throw providerError(`its API (${new URL(url).pathname}) answered ${response.status}`);
    return response.json().catch((error) => {
      throw providerError('its API did not answer JSON', error);
    });
  }

  const githubIdentity =
    (issuer: string, apiBase: string) =>
    async (accessToken: string): Promise<ProviderIdentity> => {
      const user = (await apiGet(accessToken, `${apiBase}/user`)) as { id?: unknown };
      if (typeof user?.id !== 'number' && typeof user?.id !== 'string')
        throw providerError('its user API gave no user id');
      const emails = await apiGet(accessToken, `${apiBase}/user/emails`);
      const list = Array.isArray(emails) ? (emails as Array<Record<string, unknown>>) : [];
      // The primary address, trusted only when GitHub has verified it.
      const primary = list.find((e) => e.primary === true && typeof e.email === 'string');
      return {
        issuer,
        subject: String(user.id),
        email: primary ? String(primary.email) : null,
        email_verified: primary?.verified === true,
      };
    };

  const discordIdentity = async (accessToken: string): Promise<ProviderIdentity> => {
    const user = (await apiGet(accessToken, 'https://discord.com/api/users/@me')) as Record<string, unknown>;
    if (typeof user?.id !== 'string') throw providerError('its user API gave no user id');
    return {
      issuer: 'https://discord.com',
      subject: user.id,
      email: typeof user.email === 'string' ? user.email : null,
      email_verified: user.verified === true,
    };
  };

  return {
    requestOptions,

    /** The provider's runtime: metadata discovered (or its preset's), the client authenticated. */
    async runtime(
      appId: string,
      providerId: string,
      p: OAuthProviderSettings,
      now: number,
    ): Promise<ProviderRuntime> {
      const preset = PRESETS[p.type];
      const as = await serverOf(p, now);
      const auth = await clientAuth(appId, providerId, p, as);
      const oidc = p.type !== 'github' && p.type !== 'discord';
      const scopes = p.scopes ?? preset.scopes;
      let readIdentity: ProviderRuntime['readIdentity'];
      if (p.type === 'github') {
        const api = (
          p.api_url ?? (p.base_url ? `${p.base_url.replace(/\/+$/, '')}/api/v3` : 'https://api.github.com')
        ).replace(/\/+$/, '');
        readIdentity = githubIdentity(as.issuer, api);
      } else if (p.type === 'discord') readIdentity = discordIdentity;
      return {
        as,
        ...(as.issuer.includes(TENANT_PLACEHOLDER) ? { tenantServer: tenantServers(as) } : {}),
        client: { client_id: p.client_id },
        auth,
        oidc,
        scopes: oidc && !scopes.includes('openid') ? ['openid', ...scopes] : scopes,
        // Apple posts the answer when it is asked for the name or email.
        params: p.type === 'apple' ? { response_mode: 'form_post' } : {},
        linkByVerifiedEmail: p.link_by_verified_email ?? preset.linkByVerifiedEmail,
        ...(readIdentity ? { readIdentity } : {}),
      };
    },

    /** Forgets a provider's discovered metadata (and so its JWKS): the next runtime reads them afresh. */
    forget(p: OAuthProviderSettings) {
      const issuer = discoveredIssuer(p);
      if (issuer !== undefined) discovered.delete(issuer);
    },
  };
}

export type ProviderRuntimes = ReturnType<typeof providerRuntimes>;

/** Where an OpenID Connect provider's metadata is discovered from; undefined for plain OAuth 2.0. */
function discoveredIssuer(p: OAuthProviderSettings): string | undefined {
  switch (p.type) {
    case 'oidc':
      return p.issuer;
    case 'google':
      return 'https://accounts.google.com';
    case 'microsoft':
      return `https://login.microsoftonline.com/${p.tenant}/v2.0`;
    case 'apple':
      return APPLE_ISSUER;
    default:
      return undefined;
  }
}

/** Apple's client secret: a short-lived ES256 JWT signed with the App's Sign in with Apple key. */
async function appleClientSecret(p: Extract<OAuthProviderSettings, { type: 'apple' }>, pem: string) {
  let key: CryptoKey;
  try {
    key = await importPKCS8(pem, 'ES256');
  } catch (error) {
    throw new LatchkeyError(
      'oauth_provider_misconfigured',
      'The Apple private_key is not a PKCS#8 P-256 key.',
      {
        cause: error,
      },
    );
  }
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: p.key_id })
    .setIssuer(p.team_id)
    .setSubject(p.client_id)
    .setAudience(APPLE_ISSUER)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key);
}
