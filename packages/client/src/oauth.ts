import type { ClientCore } from './client.js';
import type { ServerErrorType } from './errors.js';
import { newPkcePair } from './pkce.js';
import {
  handleLanding,
  type LandingAuthenticateOptions,
  PROVIDER_REDIRECT_ERRORS,
  spendLandingToken,
  verifierStore,
} from './redirect-sign-in.js';

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

/** The session's options when the landing token is spent (shared with the other redirect sign-in). */
export type OAuthAuthenticateOptions = LandingAuthenticateOptions;

/**
 * The redirect's `error` values passed on as they are: the provider's own (RFC 6749, OpenID
 * Connect) and those Latchkey's callback writes. Any other becomes `oauth_provider_error`.
 */
const REDIRECT_ERRORS: ReadonlySet<string> = new Set([
  ...PROVIDER_REDIRECT_ERRORS,
  ...(['oauth_provider_error', 'oauth_identity_linked_elsewhere'] satisfies ServerErrorType[]),
]);

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
  const authenticate = (token: string, options: OAuthAuthenticateOptions = {}) =>
    spendLandingToken(core, verifiers, token, options, (body) =>
      core.call('post /v1/auth/oauth/authenticate', { body }),
    );

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
    handleRedirect: (location?: string | URL, options: OAuthAuthenticateOptions = {}) =>
      handleLanding(verifiers, location, 'oauth', REDIRECT_ERRORS, (token) => authenticate(token, options)),
  };
};
