import type { ClientCore } from './client.js';
import { LatchkeyClientError, type ServerErrorType } from './errors.js';
import type { paths } from './generated/openapi.js';
import { newPkcePair } from './pkce.js';
import {
  handleLanding,
  type LandingAuthenticateOptions,
  PROVIDER_REDIRECT_ERRORS,
  spendLandingToken,
  verifierStore,
} from './redirect-sign-in.js';

type StartQuery = NonNullable<paths['/v1/auth/sso/start']['get']['parameters']['query']>;

/** The organization whose identity provider signs the user in: exactly one of these. */
export type SsoOrganization =
  | { organizationId: string; slug?: never; emailDomain?: never }
  | { slug: string; organizationId?: never; emailDomain?: never }
  /** The domain of the user's email (what a sign-in page asks first): the connection claiming it. */
  | { emailDomain: string; organizationId?: never; slug?: never };

export type SsoStartOptions = SsoOrganization & {
  /** Where the callback sends the browser; one of the App's `redirect_urls.login`, its default when absent. */
  redirectUrl?: string;
  /**
   * PKCE between this tab and Latchkey (default true): the start carries an S256 challenge and the
   * landing page's `authenticate` the verifier this tab kept, so a token read from the address
   * bar by anyone else is worthless.
   */
  pkce?: boolean;
};

/** The session's options when the landing token is spent (shared with the other redirect sign-in). */
export type SsoAuthenticateOptions = LandingAuthenticateOptions;

/**
 * The redirect's `error` values passed on as they are: the provider's own and those Latchkey's SSO
 * callback writes (an email the provider did not verify, or outside the organization's domains).
 * Any other becomes `oauth_provider_error`.
 */
const REDIRECT_ERRORS: ReadonlySet<string> = new Set([
  ...PROVIDER_REDIRECT_ERRORS,
  ...([
    'oauth_provider_error',
    'oauth_identity_linked_elsewhere',
    'sso_email_not_verified',
    'sso_email_domain_not_allowed',
    'sso_connection_not_found',
  ] satisfies ServerErrorType[]),
]);

/**
 * Sign-in through an organization's own identity provider (docs/organizations.md, "Single
 * sign-on"): the start URL the browser is sent to (with PKCE), and the landing page's exchange of
 * the single-use token for a session scoped to the organization.
 */
export const sso = (core: ClientCore) => {
  const verifiers = verifierStore(`${core.options.storageKey ?? 'latchkey.session'}:sso_code_verifier`);

  /** The URL of `GET /v1/auth/sso/start` for the organization; its PKCE verifier is kept for the landing page. */
  const startUrl = async (options: SsoStartOptions) => {
    const named = [options.organizationId, options.slug, options.emailDomain].filter((v) => v !== undefined);
    if (named.length !== 1)
      throw new LatchkeyClientError({
        status: 0,
        error_type: named.length === 0 ? 'missing_field' : 'invalid_field',
        message: 'Name the organization by exactly one of organizationId, slug and emailDomain.',
      });
    const query: StartQuery = { public_token: core.options.publicToken };
    if (options.organizationId !== undefined) query.organization_id = options.organizationId;
    if (options.slug !== undefined) query.slug = options.slug;
    if (options.emailDomain !== undefined) query.email_domain = options.emailDomain;
    if (options.redirectUrl) query.redirect_url = options.redirectUrl;
    if (options.pkce ?? true) {
      const { verifier, challenge } = await newPkcePair();
      query.code_challenge = challenge;
      query.code_challenge_method = 'S256';
      verifiers.put(verifier);
    } else verifiers.forget();
    const base = (core.options.baseUrl ?? '').replace(/\/+$/, '');
    return { url: `${base}/v1/auth/sso/start?${new URLSearchParams(query)}` };
  };

  /**
   * `POST /v1/auth/sso/authenticate`: spends the landing URL's token with the verifier this tab
   * kept at start. The current session is sent as with every sign-in, and the answer's session
   * (the organization's) becomes the client's.
   */
  const authenticate = (token: string, options: SsoAuthenticateOptions = {}) =>
    spendLandingToken(core, verifiers, token, options, (body) =>
      core.call('post /v1/auth/sso/authenticate', { body }),
    );

  return {
    startUrl,
    /** Sends the browser to the organization's provider (through Latchkey's start); answers the URL. */
    start: async (options: SsoStartOptions) => {
      const started = await startUrl(options);
      globalThis.location?.assign(started.url);
      return started;
    },
    authenticate,
    /**
     * On the landing page: reads the redirect's `token` (with `token_type=sso`) or `error` from the
     * URL (the page's own by default), takes them out of the address bar, and authenticates the
     * token. A redirect carrying an error throws `LatchkeyClientError` with that `error_type`
     * (`sso_email_domain_not_allowed`, `access_denied`, …) and status 0. Null when it holds neither.
     */
    handleRedirect: (location?: string | URL, options: SsoAuthenticateOptions = {}) =>
      handleLanding(verifiers, location, 'sso', REDIRECT_ERRORS, (token) => authenticate(token, options)),
  };
};
