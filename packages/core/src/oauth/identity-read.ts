import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { LatchkeyError } from '../errors.js';
import type { ProviderIdentity, ProviderRuntime } from './providers.js';
import type { OAuthFlowRecord } from './repo.js';

interface ReadOptions {
  redirectUri: string;
  requestOptions: () => Record<string | symbol, unknown>;
  /** The provider's runtime with its metadata (and so its JWKS) read afresh. */
  refreshed: () => Promise<ProviderRuntime>;
}

/** oauth4webapi's codes: which of its failures is the provider's answer (not the network). */
const describe = (error: unknown): string => {
  if (error instanceof oauth.ResponseBodyError) return `the provider answered ${error.error}`;
  if (error instanceof oauth.AuthorizationResponseError) return `the provider answered ${error.error}`;
  if (error instanceof oauth.OperationProcessingError) return error.message;
  if (error instanceof oauth.UnsupportedOperationError)
    return `the ID token is signed in a way not accepted (${error.message})`;
  if (error instanceof Error && error.name === 'TimeoutError') return 'the provider did not answer in time';
  return 'the provider could not be reached';
};

const isKeyMiss = (error: unknown) =>
  error instanceof oauth.OperationProcessingError && error.code === oauth.KEY_SELECTION;

/**
 * The ID token's signature by the provider's published keys. oauth4webapi reads a JWKS at most
 * once a minute per metadata object, so a key the provider began using since is looked up once
 * more in keys read afresh (a rotation costs one sign-in one extra fetch, not a failure).
 */
async function checkSignature(
  as: oauth.AuthorizationServer,
  response: Response,
  o: ReadOptions,
  fresh: () => Promise<oauth.AuthorizationServer>,
): Promise<void> {
  try {
    await oauth.validateApplicationLevelSignature(as, response, o.requestOptions());
  } catch (error) {
    if (!isKeyMiss(error)) throw error;
    await oauth.validateApplicationLevelSignature(await fresh(), response, o.requestOptions());
  }
}

/** The `tid` an ID token names, read before it is checked (which needs the tenant's issuer). */
async function tenantOf(response: Response): Promise<string> {
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { id_token?: unknown } | undefined;
  if (typeof body?.id_token !== 'string') return '';
  try {
    const { tid } = decodeJwt(body.id_token);
    return typeof tid === 'string' ? tid : '';
  } catch {
    return '';
  }
}

/** Apple sends `email_verified` as the string "true". */
const isTrue = (value: unknown) => value === true || value === 'true';

/**
 * Exchanges the callback's code (once) and reads whose identity came back, every check made by
 * oauth4webapi: the state and issuer of the answer, and for OpenID Connect the ID token's
 * signature (by the provider's JWKS, never `none` or a key the provider did not publish), issuer,
 * audience, `azp`, nonce, `iat` and `exp`. Scope claims the ID token leaves out come from UserInfo.
 */
export async function readProviderIdentity(
  runtime: ProviderRuntime,
  params: URLSearchParams,
  state: string,
  flow: Pick<OAuthFlowRecord, 'code_verifier' | 'nonce'>,
  o: ReadOptions,
): Promise<{ identity: ProviderIdentity; tokens: oauth.TokenEndpointResponse }> {
  const { as, client, auth } = runtime;
  try {
    const answer = oauth.validateAuthResponse(as, client, params, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      answer,
      o.redirectUri,
      flow.code_verifier,
      // GitHub answers JSON only when asked to.
      { ...o.requestOptions(), headers: new Headers({ accept: 'application/json' }) },
    );
    if (!runtime.oidc) {
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
      if (!runtime.readIdentity) throw new TypeError('An OAuth 2.0 provider needs its identity reader.');
      return { identity: await runtime.readIdentity(tokens.access_token), tokens };
    }
    if (flow.nonce === null) throw new TypeError('An OpenID Connect sign-in is started with a nonce.');
    // The ID token's signature and every claim are checked below, against the tenant it names.
    const checkedBy = runtime.tenantServer ? runtime.tenantServer(await tenantOf(response)) : as;
    const tokens = await oauth.processAuthorizationCodeResponse(checkedBy, client, response, {
      expectedNonce: flow.nonce,
      requireIdToken: true,
    });
    // oauth4webapi leaves the ID token's signature to the caller (TLS may vouch for it): checked here.
    await checkSignature(checkedBy, response, o, async () => {
      const fresh = await o.refreshed();
      return fresh.tenantServer ? fresh.tenantServer(await tenantOf(response)) : fresh.as;
    });
    const claims = oauth.getValidatedIdTokenClaims(tokens);
    if (!claims) throw new TypeError('requireIdToken leaves no response without claims.');
    let email = typeof claims.email === 'string' ? claims.email : undefined;
    let verified = isTrue(claims.email_verified);
    if (email === undefined && runtime.scopes.includes('email') && as.userinfo_endpoint) {
      const info = await oauth.processUserInfoResponse(
        checkedBy,
        client,
        claims.sub,
        await oauth.userInfoRequest(checkedBy, client, tokens.access_token, o.requestOptions()),
      );
      if (typeof info.email === 'string') {
        email = info.email;
        verified = isTrue(info.email_verified);
      }
    }
    return {
      identity: { issuer: claims.iss, subject: claims.sub, email: email ?? null, email_verified: verified },
      tokens,
    };
  } catch (error) {
    if (error instanceof LatchkeyError) throw error;
    throw new LatchkeyError(
      'oauth_provider_error',
      `The provider's answer was refused: ${describe(error)}.`,
      {
        cause: error,
      },
    );
  }
}
