import { type ClientErrorType, LatchkeyClientError, type OAuthRedirectErrorType } from './errors.js';

/**
 * What the sign-ins through a provider's pages (OAuth, an organization's SSO) share: the PKCE
 * verifier kept across the trip, and the landing URL read and cleaned.
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
