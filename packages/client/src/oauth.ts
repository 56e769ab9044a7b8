import { type ClientCore, sessionFields } from './client.js';
import {
  type ClientErrorType,
  LatchkeyClientError,
  type OAuthRedirectErrorType,
  type ServerErrorType,
} from './errors.js';
import { newPkcePair } from './pkce.js';

export interface OAuthStartOptions {
  /**
   * Where the provider's answer lands when the identity signs in an existing user (and on every
   * failure); one of the App's `redirect_urls.login`, its default when absent.
   */
  loginRedirectUrl?: string;
  /** Where it lands when a user is created; one of the App's `redirect_urls.signup`, its default when absent. */
  signupRedirectUrl?: string;
  /**
   * PKCE between this tab and Latchkey (default true): the start carries an S256 challenge and the
   * landing page's `authenticate` the verifier this tab kept, so a token read from the address bar
   * by anyone else is worthless.
   */
  pkce?: boolean;
  /**
   * Links the provider to the signed-in user (default: whenever the client holds a session, as
   * every sign-in here joins the current session). `false` signs in as whoever the identity is.
   */
  link?: boolean;
}

export interface OAuthAuthenticateOptions {
  /** Minutes the session lasts; the client's `sessionExpiresIn` (60) when absent. */
  sessionExpiresIn?: number;
  deviceFingerprint?: { ip?: string; user_agent?: string };
}

/**
 * The redirect's `error` values passed on as they are: the provider's own (RFC 6749, OpenID
 * Connect) and those Latchkey's callback writes. Any other becomes `oauth_provider_error`, so
 * `error_type` stays one closed set.
 */
const REDIRECT_ERRORS: ReadonlySet<string> = new Set([
  ...([
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
  ] satisfies OAuthRedirectErrorType[]),
  ...(['oauth_provider_error', 'oauth_identity_linked_elsewhere'] satisfies ServerErrorType[]),
]);

/** The landing URL's parameters this helper reads, and takes out of the address bar. */
const REDIRECT_PARAMS = ['token', 'token_type', 'error', 'error_description', 'error_uri'];

/**
 * Where a start leaves its PKCE verifier for the landing page: the tab's sessionStorage where there
 * is one (it survives the trip through the provider and belongs to this tab alone), else this
 * client's memory (Node, tests).
 */
function verifierStore(key: string) {
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
 * Sign-in through the App's OAuth / OpenID Connect providers: the start URL the browser is sent to
 * (with PKCE), and the landing page's exchange of the single-use token the redirect carries.
 */
export const oauth = (core: ClientCore) => {
  const verifiers = verifierStore(`${core.options.storageKey ?? 'latchkey.session'}:oauth_code_verifier`);

  /** The URL that starts a sign-in with `providerId`; its PKCE verifier is kept for the landing page. */
  const startUrl = async (providerId: string, options: OAuthStartOptions = {}) => {
    const query = new URLSearchParams({ public_token: core.options.publicToken });
    if (options.loginRedirectUrl) query.set('login_redirect_url', options.loginRedirectUrl);
    if (options.signupRedirectUrl) query.set('signup_redirect_url', options.signupRedirectUrl);
    if (options.pkce ?? true) {
      const { verifier, challenge } = await newPkcePair();
      query.set('code_challenge', challenge);
      query.set('code_challenge_method', 'S256');
      verifiers.put(verifier);
    } else verifiers.forget();
    if (options.link ?? true) {
      // The JWT rather than the token where the client holds both: a URL may be logged, and the
      // JWT expires within minutes.
      const held = core.session.get();
      if (held?.session_jwt) query.set('session_jwt', held.session_jwt);
      else if (held?.session_token) query.set('session_token', held.session_token);
    }
    const base = (core.options.baseUrl ?? '').replace(/\/+$/, '');
    return { url: `${base}/v1/auth/oauth/${encodeURIComponent(providerId)}/start?${query}` };
  };

  /**
   * Spends the token of the landing URL with the verifier this tab kept at start. As with every
   * sign-in, the current session is sent (the factor joins it when it is the same user's; another
   * user's is never extended) and the answer's session becomes the client's.
   */
  const authenticate = async (token: string, options: OAuthAuthenticateOptions = {}) => {
    const verifier = verifiers.get();
    try {
      const answer = await core.call('post /v1/auth/oauth/authenticate', {
        body: {
          ...sessionFields(core),
          ...(options.sessionExpiresIn !== undefined ? { session_expires_in: options.sessionExpiresIn } : {}),
          token,
          ...(verifier ? { code_verifier: verifier } : {}),
          ...(options.deviceFingerprint ? { device_fingerprint: options.deviceFingerprint } : {}),
        },
      });
      verifiers.forget();
      return core.session.accept(answer);
    } catch (err) {
      // An answer spends the token either way; without one (offline), a retry may still use it.
      if (!(err instanceof LatchkeyClientError) || err.status !== 0) verifiers.forget();
      throw err;
    }
  };

  return {
    startUrl,
    /** Sends the browser to the provider (through Latchkey's start); answers the URL it went to. */
    start: async (providerId: string, options: OAuthStartOptions = {}) => {
      const started = await startUrl(providerId, options);
      globalThis.location?.assign(started.url);
      return started;
    },
    authenticate,
    /**
     * On the landing page: reads the redirect's `token` (with `token_type=oauth`) or `error` from the
     * URL (the page's own by default), takes them out of the address bar, and authenticates the
     * token. A redirect carrying an error throws `LatchkeyClientError` with that `error_type`
     * (`access_denied` when the user cancelled) and status 0. Null when the URL holds neither.
     */
    handleRedirect: async (location?: string | URL, options: OAuthAuthenticateOptions = {}) => {
      const href = String(location ?? globalThis.location?.href ?? '');
      const url = new URL(href, 'http://localhost');
      const error = url.searchParams.get('error');
      const description = url.searchParams.get('error_description');
      const token = url.searchParams.get('token_type') === 'oauth' ? url.searchParams.get('token') : null;
      if (!error && !token) return null;
      if (globalThis.history && globalThis.location?.href === href) {
        for (const name of REDIRECT_PARAMS) url.searchParams.delete(name);
        globalThis.history.replaceState(
          globalThis.history.state,
          '',
          `${url.pathname}${url.search}${url.hash}`,
        );
      }
      if (error) {
        verifiers.forget();
        const known = REDIRECT_ERRORS.has(error);
        throw new LatchkeyClientError({
          status: 0,
          error_type: (known ? error : 'oauth_provider_error') as ClientErrorType,
          message:
            description ?? (known ? `The sign-in ended with ${error}.` : `The provider answered ${error}.`),
        });
      }
      return authenticate(token!, options);
    },
  };
};
