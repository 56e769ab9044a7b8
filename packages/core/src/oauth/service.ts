import * as oauth from 'oauth4webapi';
import { newSecret } from '../crypto/ids.js';
import { type ErrorType, LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { SessionService } from '../sessions/service.js';
import { chooseRedirect, withParams } from '../shared/redirect-url.js';
import { completeSignIn } from '../sign-in/complete.js';
import type { OAuthLinkView } from '../users/schema.js';
import { oauthLinkView } from '../users/service.js';
import { callbackFailures, oauthFactor, spendFlowToken, takeFlowState } from './flow-steps.js';
import { resolveIdentity } from './identity-owner.js';
import { readProviderIdentity } from './identity-read.js';
import { hasOtherSignInMethod } from './other-methods.js';
import { openProviderTokens, type ProviderTokens, sealProviderTokens } from './provider-tokens.js';
import { type ProviderCalls, providerRuntimes } from './providers.js';
import type { OAuthTakeFailure } from './repo.js';
import type {
  OAuthAuthenticateRequest,
  OAuthAuthenticateResponse,
  OAuthProviderSettings,
  StartQuery,
} from './schema.js';

// The OpenID Connect machinery organizations' SSO (sso/) builds on, offered at this capability's
// surface: the same discovery, ID-token checks, identity linking and secret sealing, not a copy.
export { callbackFailures, oauthFactor, spendFlowToken, takeFlowState } from './flow-steps.js';
export { resolveIdentity } from './identity-owner.js';
export { readProviderIdentity } from './identity-read.js';
// The App's settings hold providers' secrets sealed: apps/ seals them when the settings are written.
export { refuseSealedInput, sealProviderSecrets } from './provider-secrets.js';
export {
  type ProviderCalls,
  type ProviderIdentity,
  type ProviderRuntimes,
  providerRuntimes,
} from './providers.js';

/** How long a started sign-in waits for its callback, and its token for `authenticate`. */
export const STATE_SECONDS = 600;
export const TOKEN_SECONDS = 600;

export interface OAuthOptions extends ProviderCalls {
  callbackUrl: string | undefined;
}

const tokenFailures: Record<OAuthTakeFailure, ErrorType> = {
  not_found: 'oauth_token_not_found',
  used: 'oauth_token_used',
  expired: 'oauth_token_expired',
};

export type OAuthService = ReturnType<typeof oauthService>;

export function oauthService(k: Kernel, sessions: SessionService, options: OAuthOptions) {
  const runtimes = providerRuntimes(k.vault, options);
  const hashState = (state: string) => k.hasher.hash('oauth_state', state);
  const hashToken = (token: string) => k.hasher.hash('oauth_token', token);

  function providerOf(settings: { oauth: { providers: Record<string, OAuthProviderSettings> } }, id: string) {
    const provider = Object.hasOwn(settings.oauth.providers, id) ? settings.oauth.providers[id] : undefined;
    if (!provider) throw new LatchkeyError('oauth_provider_not_found');
    return provider;
  }

  function callbackUrl(): string {
    if (!options.callbackUrl) throw new LatchkeyError('oauth_not_configured');
    return options.callbackUrl;
  }

  return {
    /**
     * Starts a sign-in: checks the provider and the redirects (and the session, when linking), holds the state,
     * nonce and PKCE verifier (single use, 10 minutes) and answers the provider's URL to go to.
     */
    async start(appId: string, providerId: string, query: StartQuery): Promise<{ url: string }> {
      const app = await k.app(appId);
      const provider = providerOf(app.settings, providerId);
      const redirectUri = callbackUrl();
      const r = app.settings.redirect_urls;
      const login = chooseRedirect(query.login_redirect_url, r.default_login, r.login, 'login_redirect_url');
      const signup = chooseRedirect(
        query.signup_redirect_url,
        r.default_signup,
        r.signup,
        'signup_redirect_url',
      );
      const signedIn =
        query.session_token !== undefined || query.session_jwt !== undefined
          ? await sessions.liveUserId(appId, {
              session_token: query.session_token,
              session_jwt: query.session_jwt,
            })
          : null;
      const now = k.now();
      const runtime = await runtimes.runtime(appId, providerId, provider, now);
      const endpoint = runtime.as.authorization_endpoint;
      if (!endpoint) throw new LatchkeyError('oauth_provider_error');

      const state = oauth.generateRandomState();
      const nonce = runtime.oidc ? oauth.generateRandomNonce() : null;
      const codeVerifier = oauth.generateRandomCodeVerifier();
      await k.storage.oauth.insertFlow({
        id: k.id('oauthflow'),
        app_id: appId,
        provider_id: providerId,
        state_hash: hashState(state),
        nonce,
        code_verifier: codeVerifier,
        client_code_challenge: query.code_challenge ?? null,
        login_redirect_url: login,
        signup_redirect_url: signup,
        link_user_id: signedIn,
        state_expires_at: now + STATE_SECONDS,
        state_used_at: null,
        token_hash: null,
        token_expires_at: null,
        token_used_at: null,
        user_id: null,
        link_id: null,
        user_created: false,
        created_at: now,
      });
      const url = new URL(endpoint);
      const params = {
        client_id: runtime.client.client_id,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: runtime.scopes.join(' '),
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        ...(nonce ? { nonce } : {}),
        ...runtime.params,
      };
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return { url: url.toString() };
    },

    /**
     * The provider's answer. Without a state Latchkey holds there is nowhere to send the browser
     * (a JSON error). Once the state is spent, every outcome goes to the App's redirect URL: a
     * single-use token, or the provider's error, or `oauth_provider_error` when what the provider
     * answered fails validation (and nothing is created).
     */
    async callback(params: URLSearchParams): Promise<{ location: string }> {
      const state = params.get('state');
      if (!state) throw new LatchkeyError('oauth_state_not_found');
      const now = k.now();
      const flow = await takeFlowState(k, hashState(state), now);
      const failures = callbackFailures(k, flow, 'OAuth callback failed');
      // The provider's own refusal (the user said no): its words, for the App to show.
      const refused = failures.refusal(params);
      if (refused) return refused;

      try {
        const app = await k.app(flow.app_id);
        const provider = providerOf(app.settings, flow.provider_id);
        const runtime = await runtimes.runtime(flow.app_id, flow.provider_id, provider, now);
        const { identity, tokens } = await readProviderIdentity(runtime, params, state, flow, {
          redirectUri: callbackUrl(),
          requestOptions: runtimes.requestOptions,
          refreshed: () => {
            runtimes.forget(provider);
            return runtimes.runtime(flow.app_id, flow.provider_id, provider, now);
          },
        });
        const owner = await resolveIdentity(k, flow.app_id, flow.provider_id, identity, {
          linkUserId: flow.link_user_id,
          linkByVerifiedEmail: runtime.linkByVerifiedEmail,
        });
        if (provider.store_tokens)
          await k.storage.oauth.updateLink(flow.app_id, owner.link.id, {
            provider_tokens_sealed: await sealProviderTokens(k.vault, owner.link, tokens, now),
            updated_at: now,
          });
        const token = newSecret('', k.random, 32);
        await k.storage.oauth.finishFlow(flow.app_id, flow.id, {
          token_hash: hashToken(token),
          token_expires_at: now + TOKEN_SECONDS,
          user_id: owner.link.user_id,
          link_id: owner.link.id,
          user_created: owner.userCreated,
        });
        const redirect = owner.userCreated ? flow.signup_redirect_url : flow.login_redirect_url;
        return { location: withParams(redirect, { token, token_type: 'oauth' }) };
      } catch (error) {
        return failures.caught(error);
      }
    },

    /** Spends the callback's token once and signs its user in, by the session rules of every sign-in. */
    async authenticate(appId: string, input: OAuthAuthenticateRequest): Promise<OAuthAuthenticateResponse> {
      const now = k.now();
      const { flow, link } = await spendFlowToken(
        k,
        appId,
        { hash: hashToken(input.token), codeVerifier: input.code_verifier },
        tokenFailures,
        now,
      );
      const factor = oauthFactor(link, link.provider_id, now);
      const signedIn = await completeSignIn(sessions, appId, { userId: link.user_id, factor }, input);
      return {
        ...signedIn,
        provider_id: link.provider_id,
        provider_subject: link.subject,
        link_id: link.id,
        user_created: flow.user_created,
      };
    },

    /** The user's linked provider accounts, oldest first. */
    async links(appId: string, userId: string): Promise<OAuthLinkView[]> {
      return (await k.storage.oauth.listLinks(appId, userId)).map(oauthLinkView);
    },

    /** Unlinks a provider account, unless it is the only way left for its user to sign in. */
    async unlink(appId: string, linkId: string): Promise<{ user_id: string }> {
      const link = await k.storage.oauth.getLink(appId, linkId);
      if (!link) throw new LatchkeyError('oauth_link_not_found');
      if (!(await hasOtherSignInMethod(k, appId, link.user_id, link.id)))
        throw new LatchkeyError('last_sign_in_method');
      const removed = await k.storage.oauth.deleteLink(appId, linkId);
      if (!removed) throw new LatchkeyError('oauth_link_not_found');
      return { user_id: removed.user_id };
    },

    /**
     * The provider's tokens for a user (`store_tokens` on), refreshed first when the access token
     * has expired and a refresh token is held; null when none are kept.
     */
    async providerTokens(appId: string, userId: string, providerId: string): Promise<ProviderTokens | null> {
      const link = (await k.storage.oauth.listLinks(appId, userId)).find((l) => l.provider_id === providerId);
      if (!link?.provider_tokens_sealed) return null;
      const tokens = await openProviderTokens(k.vault, link);
      const now = k.now();
      if (tokens.expires_at === undefined || tokens.expires_at > now + 30 || !tokens.refresh_token)
        return tokens;
      const app = await k.app(appId);
      const provider = providerOf(app.settings, providerId);
      const runtime = await runtimes.runtime(appId, providerId, provider, now);
      let refreshed: oauth.TokenEndpointResponse;
      try {
        const response = await oauth.refreshTokenGrantRequest(
          runtime.as,
          runtime.client,
          runtime.auth,
          tokens.refresh_token,
          runtimes.requestOptions(),
        );
        refreshed = await oauth.processRefreshTokenResponse(runtime.as, runtime.client, response);
      } catch (error) {
        throw new LatchkeyError('oauth_provider_error', 'The provider refused to refresh the tokens.', {
          cause: error,
        });
      }
      const sealed = await sealProviderTokens(k.vault, link, refreshed, now, tokens.refresh_token);
      await k.storage.oauth.updateLink(appId, link.id, { provider_tokens_sealed: sealed, updated_at: now });
      return openProviderTokens(k.vault, { ...link, provider_tokens_sealed: sealed });
    },
  };
}
