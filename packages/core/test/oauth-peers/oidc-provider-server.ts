import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * panva's oidc-provider (an OpenID Certified server) on 127.0.0.1, with an http issuer, clients
 * registered by the test and interactions answered by the test instead of a login page.
 */

export interface OidcClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post';
}

/** What the provider knows of an account; the test may change it between sign-ins. */
export interface OidcAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface OidcProviderOptions {
  clients: OidcClient[];
  accounts?: Record<string, OidcAccount>;
  /**
   * false (oidc-provider's default, `conformIdTokenClaims`): the claims a scope asks for go to
   * UserInfo only, the ID token keeps `sub` and the protocol claims; true: the ID token has them too.
   */
  claimsInIdToken?: boolean;
  /** Issue refresh tokens on the authorization code grant (no `offline_access` needed). */
  refreshTokens?: boolean;
  /** Access token lifetime in seconds (oidc-provider's default is an hour). */
  accessTokenTtl?: number;
  /**
   * oidc-provider's own login and consent pages (its devInteractions: any password, the login is
   * the account id) for a real browser to fill in, instead of the test's interaction endpoint;
   * `signInAs` does not drive them.
   */
  pages?: boolean;
}

export interface SignInOptions {
  /** Grant the consent prompt (default) or refuse it with `access_denied`. */
  consent?: boolean;
  /** Refuse at the first prompt (login): the provider redirects with `error=access_denied`. */
  deny?: boolean;
}

export interface OidcProviderServer {
  issuer: string;
  /** The accounts `findAccount` reads, live: change one and the next sign-in sees it. */
  accounts: Record<string, OidcAccount>;
  /**
   * Drives the provider as a browser would, from the authorization URL Latchkey's `start`
   * redirected to, through login and consent as `accountId`, and returns the provider's redirect
   * to the client (not followed).
   */
  signInAs(authorizationUrl: string | URL, accountId: string, options?: SignInOptions): Promise<URL>;
  /** Every request the server received (method and path with query), in order. */
  requests: Array<{ method: string; path: string }>;
  /** Requests to the JWKS endpoint so far. */
  jwksFetches(): number;
  /** Requests to the token endpoint so far (code exchanges and refreshes). */
  tokenRequests(): number;
  /** Requests to the UserInfo endpoint so far. */
  userinfoRequests(): number;
  /** The public signing keys the provider publishes. */
  jwks(): { keys: Array<Record<string, unknown>> };
  /** A new signing key, first in the JWKS (the old one stays published): a key rotation. */
  rotateKeys(): void;
  close(): Promise<void>;
}

const JWKS_PATH = '/jwks';
const TOKEN_PATH = '/token';
const USERINFO_PATH = '/me';
const INTERACTION = /^\/interaction\/([^/?]+)$/;

function signingKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    ...privateKey.export({ format: 'jwk' }),
    kid: randomBytes(8).toString('hex'),
    alg: 'RS256',
    use: 'sig',
  };
}

function publicPart(jwk: Record<string, unknown>) {
  const { kty, n, e, kid, alg, use } = jwk;
  return { kty, n, e, kid, alg, use };
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<OidcProviderServer> {
  const accounts = options.accounts ?? {};
  const keys = [signingKey()];
  const cookieKeys = [randomBytes(32).toString('hex')];
  const requests: OidcProviderServer['requests'] = [];
  let provider: Provider | undefined;

  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/' });
    const interaction = INTERACTION.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (interaction && provider && !options.pages) {
      answerInteraction(provider, req, res).catch((err) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
      });
      return;
    }
    provider?.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // A rotation builds a new Provider on the same issuer: oidc-provider reads its keys once.
  // Its default adapter keeps grants and sessions in the module, so nothing in flight is lost.
  const build = () => {
    const p = new Provider(issuer, {
      clients: options.clients.map((c) => ({
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: options.refreshTokens ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
        response_types: ['code'],
        ...c,
      })),
      jwks: { keys },
      cookies: { keys: cookieKeys },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      conformIdTokenClaims: !options.claimsInIdToken,
      features: { devInteractions: { enabled: Boolean(options.pages) }, userinfo: { enabled: true } },
      ...(options.pages
        ? {}
        : { interactions: { url: (_ctx: unknown, i: { uid: string }) => `/interaction/${i.uid}` } }),
      issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) =>
        Boolean(options.refreshTokens) && client.grantTypeAllowed('refresh_token'),
      ttl: { AccessToken: options.accessTokenTtl ?? 3600 },
      findAccount: async (_ctx: unknown, sub: string) => {
        const account = accounts[sub];
        if (!account) return undefined;
        return { accountId: sub, claims: async () => ({ sub, ...accounts[sub] }) };
      },
    });
    // The provider would log its errors (a refused client, a used code) to the console.
    p.on('server_error', () => {});
    return p;
  };
  provider = build();

  const signInAs: OidcProviderServer['signInAs'] = async (authorizationUrl, accountId, opts = {}) => {
    const jar = cookieJar();
    let url = new URL(authorizationUrl);
    for (let hop = 0; hop < 20; hop += 1) {
      if (url.origin !== issuer) return url;
      let res: Response;
      if (INTERACTION.test(url.pathname)) {
        const details = await (await fetch(url, { headers: jar.header() })).json();
        const action = opts.deny
          ? 'abort'
          : details.prompt === 'login'
            ? 'login'
            : opts.consent === false
              ? 'abort'
              : 'consent';
        res = await fetch(url, {
          method: 'POST',
          headers: { ...jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ action, account: accountId }),
          redirect: 'manual',
        });
      } else {
        res = await fetch(url, { headers: jar.header(), redirect: 'manual' });
      }
      jar.take(res);
      const location = res.headers.get('location');
      if (!location) throw new Error(`the provider answered ${res.status} at ${url}: ${await res.text()}`);
      url = new URL(location, url);
    }
    throw new Error('too many redirects in the sign-in');
  };

  const count = (path: string) => requests.filter((r) => r.path.split('?')[0] === path).length;
  return {
    issuer,
    accounts,
    signInAs,
    requests,
    jwksFetches: () => count(JWKS_PATH),
    tokenRequests: () => count(TOKEN_PATH),
    userinfoRequests: () => count(USERINFO_PATH),
    jwks: () => ({ keys: keys.map(publicPart) }),
    rotateKeys() {
      keys.unshift(signingKey());
      provider = build();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The test's own interaction endpoint: GET tells the prompt, POST answers it (`action` login with
 * `account`, consent, or abort) and redirects back into the provider.
 */
async function answerInteraction(provider: Provider, req: IncomingMessage, res: ServerResponse) {
  const details = await provider.interactionDetails(req, res);
  if (req.method !== 'POST') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ uid: details.uid, prompt: details.prompt.name, params: details.params }));
    return;
  }
  const form = new URLSearchParams(await readBody(req));
  const action = form.get('action');
  if (action === 'abort') {
    await provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The user refused the sign-in.' },
      { mergeWithLastSubmission: false },
    );
  } else if (action === 'login' && details.prompt.name === 'login') {
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: form.get('account') } },
      { mergeWithLastSubmission: false },
    );
  } else if (action === 'consent' && details.prompt.name === 'consent') {
    const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = details.prompt.details;
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id });
    if (!grant) throw new Error('the interaction names a grant that does not exist');
    if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
    if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
    for (const [indicator, scope] of Object.entries<string[]>(missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scope.join(' '));
    await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } });
  } else {
    res
      .writeHead(400, { 'content-type': 'text/plain' })
      .end(`cannot ${action} at prompt ${details.prompt.name}`);
  }
}

async function readBody(req: IncomingMessage) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Cookies by name, as one browser keeps them for one host (paths are ignored: names differ). */
function cookieJar() {
  const cookies = new Map<string, string>();
  return {
    header: (): Record<string, string> =>
      cookies.size ? { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {},
    take(res: Response) {
      for (const line of res.headers.getSetCookie()) {
        const [pair = '', ...attributes] = line.split(';');
        const eq = pair.indexOf('=');
        const name = pair.slice(0, eq).trim();
        const value = pair.slice(eq + 1).trim();
        const expires = attributes.find((a) => a.trim().toLowerCase().startsWith('expires='));
        const gone = !value || (expires && Date.parse(expires.split('=')[1]!) <= Date.now());
        if (gone) cookies.delete(name);
        else cookies.set(name, value);
      }
    },
  };
}
