import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { base64url, exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { type LocalServer, localServer } from '../balance-servers.js';

/**
 * An OpenID Connect provider that signs in whoever the test names without asking and answers the
 * token request with whatever ID token the test's mutator makes of a valid one: the peer for the
 * hostile cases (wrong audience, issuer, nonce, key, algorithm, a replayed code…).
 */

export interface ProviderIdentity {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

/** The ID token about to be signed with the provider's key (as in its JWKS). */
export interface IdTokenDraft {
  header: { alg: string; kid?: string; typ?: string };
  claims: JWTPayload & Record<string, unknown>;
}

/** What a mutator may use to forge a token the JWKS does not vouch for. */
export interface ProviderKeys {
  alg: 'RS256' | 'ES256';
  kid: string;
  publicJwk: JWK;
  /** The public key as SPKI PEM text. */
  publicPem: string;
}

/** Returns the draft to sign (changed as the test likes) or a finished compact token. */
export type IdTokenMutator = (
  draft: IdTokenDraft,
  keys: ProviderKeys,
) => IdTokenDraft | string | Promise<IdTokenDraft | string>;

export interface HostileProviderOptions {
  client_id: string;
  client_secret: string;
  alg?: 'RS256' | 'ES256';
  /** `id_token_signing_alg_values_supported` in discovery; default: the key's algorithm alone. */
  advertisedAlgs?: string[];
  /** The provider's clock in ms (default Date.now): match the Latchkey's when it is moved. */
  now?: () => number;
}

export interface HostileProvider {
  issuer: string;
  client_id: string;
  /** The ID token's mutator for the next token responses; null gives valid tokens. */
  mutate: IdTokenMutator | null;
  /** Changes the UserInfo response (default: the identity's claims). */
  mutateUserinfo: ((claims: Record<string, unknown>) => Record<string, unknown>) | null;
  /** When set, `/authorize` sends the browser back with this error instead of a code. */
  authorizeError: { error: string; error_description?: string } | null;
  /**
   * Follows the authorization URL as `identity` (the provider asks nothing) and returns the
   * redirect back to the client, not followed.
   */
  signIn(authorizationUrl: string | URL, identity: ProviderIdentity): Promise<URL>;
  /** The query of each `/authorize` request, in order. */
  authorizeRequests: URLSearchParams[];
  tokenRequests(): number;
  jwksFetches(): number;
  userinfoRequests(): number;
  /** Token requests refused because their code was spent already. */
  replayedCodes(): number;
  keys: ProviderKeys;
  /** Back to valid tokens and no authorize error. */
  reset(): void;
  close(): Promise<void>;
  server: LocalServer;
}

interface IssuedCode {
  identity: ProviderIdentity;
  nonce: string | null;
  redirect_uri: string;
  code_challenge: string | null;
  used: boolean;
}

export async function startHostileProvider(options: HostileProviderOptions): Promise<HostileProvider> {
  const alg = options.alg ?? 'RS256';
  const now = options.now ?? Date.now;
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const keys: ProviderKeys = {
    alg,
    kid: randomBytes(8).toString('hex'),
    publicJwk: await exportJWK(publicKey),
    publicPem: await exportSPKI(publicKey),
  };
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, ProviderIdentity>();
  const authorizeRequests: URLSearchParams[] = [];
  let replays = 0;
  let signingIn: ProviderIdentity | null = null;

  const server = await localServer(async (req, res, raw) => {
    const url = new URL(req.path, 'http://x');
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /.well-known/openid-configuration') {
      return json(res, 200, {
        issuer: provider.issuer,
        authorization_endpoint: `${provider.issuer}/authorize`,
        token_endpoint: `${provider.issuer}/token`,
        userinfo_endpoint: `${provider.issuer}/userinfo`,
        jwks_uri: `${provider.issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: options.advertisedAlgs ?? [alg],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        code_challenge_methods_supported: ['S256'],
        scopes_supported: ['openid', 'email', 'profile'],
      });
    }
    if (route === 'GET /jwks') {
      return json(res, 200, { keys: [{ ...keys.publicJwk, kid: keys.kid, alg, use: 'sig' }] });
    }
    if (route === 'GET /authorize') return authorize(url.searchParams, res);
    if (route === 'POST /token') return token(new URLSearchParams(req.body), raw.headers.authorization, res);
    if (url.pathname === '/userinfo') return userinfo(raw.headers.authorization, res);
    json(res, 404, { error: 'not_found' });
  });

  function authorize(q: URLSearchParams, res: ServerResponse) {
    authorizeRequests.push(q);
    const redirect = q.get('redirect_uri');
    if (!redirect || q.get('client_id') !== options.client_id || q.get('response_type') !== 'code')
      return json(res, 400, { error: 'invalid_request' });
    if (q.has('code_challenge') && q.get('code_challenge_method') !== 'S256')
      return json(res, 400, { error: 'invalid_request', error_description: 'S256 only' });
    const back = new URL(redirect);
    if (provider.authorizeError) {
      for (const [k, v] of Object.entries(provider.authorizeError)) if (v) back.searchParams.set(k, v);
    } else {
      if (!signingIn) return json(res, 400, { error: 'login_required' });
      const code = randomBytes(16).toString('base64url');
      codes.set(code, {
        identity: signingIn,
        nonce: q.get('nonce'),
        redirect_uri: redirect,
        code_challenge: q.get('code_challenge'),
        used: false,
      });
      back.searchParams.set('code', code);
    }
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    res.writeHead(302, { location: back.href }).end();
  }

  async function token(form: URLSearchParams, authorization: string | undefined, res: ServerResponse) {
    if (!clientAuthenticated(form, authorization)) return json(res, 401, { error: 'invalid_client' });
    const issued = codes.get(form.get('code') ?? '');
    if (form.get('grant_type') !== 'authorization_code')
      return json(res, 400, { error: 'unsupported_grant_type' });
    if (!issued) return json(res, 400, { error: 'invalid_grant', error_description: 'unknown code' });
    if (issued.used) {
      replays += 1;
      return json(res, 400, { error: 'invalid_grant', error_description: 'code already used' });
    }
    issued.used = true;
    if (form.get('redirect_uri') !== issued.redirect_uri)
      return json(res, 400, { error: 'invalid_grant', error_description: 'redirect_uri mismatch' });
    if (issued.code_challenge !== null && s256(form.get('code_verifier') ?? '') !== issued.code_challenge)
      return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });

    const at = now() / 1000;
    const { sub, email, email_verified, name } = issued.identity;
    const draft: IdTokenDraft = {
      header: { alg, kid: keys.kid, typ: 'JWT' },
      claims: {
        iss: provider.issuer,
        aud: options.client_id,
        sub,
        iat: Math.floor(at),
        exp: Math.floor(at) + 300,
        ...(issued.nonce === null ? {} : { nonce: issued.nonce }),
        ...(email === undefined ? {} : { email, email_verified: email_verified ?? false }),
        ...(name === undefined ? {} : { name }),
      },
    };
    const made = provider.mutate ? await provider.mutate(draft, keys) : draft;
    const id_token =
      typeof made === 'string'
        ? made
        : await new SignJWT(made.claims).setProtectedHeader(made.header).sign(privateKey);
    const access_token = randomBytes(16).toString('base64url');
    accessTokens.set(access_token, issued.identity);
    json(res, 200, {
      access_token,
      token_type: 'Bearer',
      expires_in: 300,
      scope: 'openid email profile',
      id_token,
    });
  }

  function clientAuthenticated(form: URLSearchParams, authorization: string | undefined) {
    if (authorization?.startsWith('Basic ')) {
      const [id, secret] = Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':');
      return (
        decodeURIComponent(id ?? '') === options.client_id &&
        decodeURIComponent(secret ?? '') === options.client_secret
      );
    }
    return form.get('client_id') === options.client_id && form.get('client_secret') === options.client_secret;
  }

  function userinfo(authorization: string | undefined, res: ServerResponse) {
    const identity = accessTokens.get(authorization?.replace(/^Bearer /, '') ?? '');
    if (!identity) return json(res, 401, { error: 'invalid_token' });
    const claims = { email_verified: false, ...identity };
    json(res, 200, provider.mutateUserinfo ? provider.mutateUserinfo(claims) : claims);
  }

  const count = (path: string) => server.requests.filter((r) => r.path.split('?')[0] === path).length;
  const provider: HostileProvider = {
    issuer: server.url,
    client_id: options.client_id,
    mutate: null,
    mutateUserinfo: null,
    authorizeError: null,
    async signIn(authorizationUrl, identity) {
      signingIn = identity;
      try {
        const res = await fetch(authorizationUrl, { redirect: 'manual' });
        const location = res.headers.get('location');
        if (!location) throw new Error(`the provider answered ${res.status}: ${await res.text()}`);
        return new URL(location);
      } finally {
        signingIn = null;
      }
    },
    authorizeRequests,
    tokenRequests: () => count('/token'),
    jwksFetches: () => count('/jwks'),
    userinfoRequests: () => count('/userinfo'),
    replayedCodes: () => replays,
    keys,
    reset() {
      provider.mutate = null;
      provider.mutateUserinfo = null;
      provider.authorizeError = null;
    },
    close: () => server.close(),
    server,
  };
  return provider;
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function s256(verifier: string) {
  return createHash('sha256').update(verifier).digest('base64url');
}

const encode = (value: unknown) => base64url.encode(JSON.stringify(value));

/** The ID token mutations of the hostile cases. */
export const mutations = {
  /** Issued to another client. */
  wrongAudience: (): IdTokenMutator => (d) => ({ ...d, claims: { ...d.claims, aud: 'another-client' } }),
  /** Two audiences, the other client named as the authorized party. */
  azpOfAnotherClient: (): IdTokenMutator => (d) => ({
    ...d,
    claims: { ...d.claims, aud: [d.claims.aud as string, 'another-client'], azp: 'another-client' },
  }),
  /** Expired `seconds` ago (past any clock tolerance). */
  expired:
    (seconds = 600): IdTokenMutator =>
    (d) => {
      const iat = (d.claims.iat as number) - seconds - 300;
      return { ...d, claims: { ...d.claims, iat, exp: iat + 300 } };
    },
  /** From another issuer than the one discovered. */
  wrongIssuer:
    (iss = 'https://evil.example.com'): IdTokenMutator =>
    (d) => ({ ...d, claims: { ...d.claims, iss } }),
  /** A nonce other than the one the authorization request sent (or none at all). */
  nonceMismatch:
    (nonce: string | undefined = randomBytes(16).toString('base64url')): IdTokenMutator =>
    (d) => {
      const { nonce: _sent, ...claims } = d.claims;
      return { ...d, claims: nonce === undefined ? claims : { ...claims, nonce } };
    },
  /** An unsecured JWT: `alg: none`, empty signature. */
  algNone: (): IdTokenMutator => (d) => `${encode({ alg: 'none', typ: 'JWT' })}.${encode(d.claims)}.`,
  /**
   * HS256 with the provider's public key as the HMAC secret (the key confusion attack): the key's
   * SPKI PEM text, or its public JWK's JSON.
   */
  hs256WithPublicKey:
    (form: 'pem' | 'jwk' = 'pem'): IdTokenMutator =>
    async (d, keys) => {
      const secret = new TextEncoder().encode(
        form === 'pem' ? keys.publicPem : JSON.stringify({ ...keys.publicJwk, kid: keys.kid }),
      );
      return new SignJWT(d.claims)
        .setProtectedHeader({ alg: 'HS256', kid: keys.kid, typ: 'JWT' })
        .sign(secret);
    },
  /** Signed by a key the JWKS does not have, under the published kid or an unknown one. */
  foreignKey:
    (kid: 'published' | 'unknown' = 'published'): IdTokenMutator =>
    async (d, keys) => {
      const { privateKey } = await generateKeyPair(keys.alg);
      const header = { ...d.header, kid: kid === 'published' ? keys.kid : randomBytes(8).toString('hex') };
      return new SignJWT(d.claims).setProtectedHeader(header).sign(privateKey);
    },
  /** Validly signed, with these claims changed or added. */
  claims:
    (over: Record<string, unknown>): IdTokenMutator =>
    (d) => ({ ...d, claims: { ...d.claims, ...over } }),
};
