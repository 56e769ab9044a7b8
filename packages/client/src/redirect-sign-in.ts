import { type ClientCore, sessionFields } from './client.js';
import { type ClientErrorType, LatchkeyClientError, type OAuthRedirectErrorType } from './errors.js';
import type { SessionState } from './session-store.js';
import type { BodyOf } from './transport.js';

/**
 * What the sign-ins through a provider's pages (OAuth, an organization's SSO) share: the PKCE
 * verifier kept across the trip, the landing URL read and cleaned, and its token spent.
 */

/**
 * The `error` codes an authorization server may send back (RFC 6749, OpenID Connect), which
 * Latchkey's callbacks pass on as the provider gave them.
 */
export const PROVIDER_REDIRECT_ERRORS: readonly OAuthRedirectErrorType[] = [
  'invalid_request',
  'unauthorized_client',
  'access_denied',
  'unsupported_response_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
  'interaction_required',
  'login_required',
  'account_selection_required',
  'consent_required',
  'invalid_request_uri',
  'invalid_request_object',
  'request_not_supported',
  'request_uri_not_supported',
  'registration_not_supported',
];

/** The landing URL's parameters read here, and taken out of the address bar. */
const REDIRECT_PARAMS = ['token', 'token_type', 'error', 'error_description', 'error_uri'];

/**
 * Where a start leaves its PKCE verifier for the landing page: the tab's sessionStorage where there
 * is one (it survives the trip through the provider and belongs to this tab alone), else this
 * client's memory (Node, tests).
 */
export function verifierStore(key: string) {
  const memory = new Map<string, string>();
  const storage = (): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> => {
    try {
      return globalThis.sessionStorage ?? memoryStorage(memory);
    } catch {
      // Storage blocked by the browser's settings: the flow still works within this document.
      return memoryStorage(memory);
    }
  };
  return {
    put: (verifier: string) => storage().setItem(key, verifier),
    get: (): string | null => storage().getItem(key),
    forget: () => storage().removeItem(key),
  };
}

type VerifierStore = ReturnType<typeof verifierStore>;

/** The body both landing exchanges take (OAuth's and SSO's routes share one shape). */
export type LandingBody = BodyOf<'post /v1/auth/oauth/authenticate'> &
  BodyOf<'post /v1/auth/sso/authenticate'>;

/** What a landing page's `authenticate` takes besides the token. */
export interface LandingAuthenticateOptions {
  /** Minutes the session lasts; the client's `sessionExpiresIn` (60) when absent. */
  sessionExpiresIn?: number;
  deviceFingerprint?: { ip?: string; user_agent?: string };
}

/**
 * Spends a landing token with the verifier this tab kept at start, through `send` (the flow's own
 * route). The current session is sent as with every sign-in, and the answer's session becomes the
 * client's.
 */
export async function spendLandingToken<T extends Partial<SessionState> & { user_id: string }>(
  core: ClientCore,
  verifiers: VerifierStore,
  token: string,
  options: LandingAuthenticateOptions,
  send: (body: LandingBody) => Promise<T>,
): Promise<T> {
  const verifier = verifiers.get();
  try {
    const answer = await send({
      ...sessionFields(core),
      ...(options.sessionExpiresIn !== undefined ? { session_expires_in: options.sessionExpiresIn } : {}),
      token,
      ...(verifier ? { code_verifier: verifier } : {}),
      ...(options.deviceFingerprint ? { device_fingerprint: options.deviceFingerprint } : {}),
    });
    verifiers.forget();
    return core.session.accept(answer);
  } catch (err) {
    // An answer spends the token either way; without one (offline), a retry may still use it.
    if (!(err instanceof LatchkeyClientError) || err.status !== 0) verifiers.forget();
    throw err;
  }
}

const memoryStorage = (map: Map<string, string>) => ({
  getItem: (k: string) => map.get(k) ?? null,
  setItem: (k: string, v: string) => void map.set(k, v),
  removeItem: (k: string) => void map.delete(k),
});

/**
 * Reads a landing URL (the page's own by default): its token when `token_type` is `tokenType`,
 * null when it holds neither that nor an error. Takes them out of the address bar when the URL is
 * the page's. An error throws `LatchkeyClientError` (status 0) with the redirect's code when it is
 * one of `known`, else `fallback`, so `error_type` stays one closed set.
 */
export function landingToken(
  location: string | URL | undefined,
  tokenType: string,
  known: ReadonlySet<string>,
  fallback: ClientErrorType,
): string | null {
  const href = String(location ?? globalThis.location?.href ?? '');
  const url = new URL(href, 'http://localhost');
  const error = url.searchParams.get('error');
  const description = url.searchParams.get('error_description');
  const token = url.searchParams.get('token_type') === tokenType ? url.searchParams.get('token') : null;
  if (!error && !token) return null;
  if (globalThis.history && globalThis.location?.href === href) {
    for (const name of REDIRECT_PARAMS) url.searchParams.delete(name);
    globalThis.history.replaceState(globalThis.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  }
  if (error) {
    const isKnown = known.has(error);
    throw new LatchkeyClientError({
      status: 0,
      error_type: (isKnown ? error : fallback) as ClientErrorType,
      message:
        description ?? (isKnown ? `The sign-in ended with ${error}.` : `The provider answered ${error}.`),
    });
  }
  return token;
}

/**
 * A landing page's whole step: the URL's token spent through `spend`, null when the URL holds
 * neither token nor error. A redirect carrying an error throws (as `landingToken`) and forgets this
 * tab's verifier: that flow is over.
 */
export function handleLanding<T>(
  verifiers: VerifierStore,
  location: string | URL | undefined,
  tokenType: string,
  known: ReadonlySet<string>,
  spend: (token: string) => Promise<T>,
): Promise<T | null> {
  let token: string | null;
  try {
    token = landingToken(location, tokenType, known, 'oauth_provider_error');
  } catch (err) {
    verifiers.forget();
    return Promise.reject(err);
  }
  return token === null ? Promise.resolve(null) : spend(token);
}
