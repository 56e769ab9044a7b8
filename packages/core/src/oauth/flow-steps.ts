import * as oauth from 'oauth4webapi';
import { type ErrorType, isLatchkeyError, LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { Factor } from '../shared/factor.js';
import { withParams } from '../shared/redirect-url.js';
import type { OAuthFlowRecord, OAuthLinkRecord, OAuthTakeFailure } from './repo.js';

/**
 * The steps of a sign-in through a provider's pages that OAuth and organizations' SSO (sso/) take
 * alike, on the same flow and link storage: spending the state at the callback, answering the
 * callback's failures on the App's redirect URL, and spending the token at `authenticate`.
 */

const stateFailures: Record<OAuthTakeFailure, ErrorType> = {
  not_found: 'oauth_state_not_found',
  used: 'oauth_state_used',
  expired: 'oauth_state_expired',
};

/** Spends the callback's state (hashed for its purpose by the caller); its flow, or the error why not. */
export async function takeFlowState(k: Kernel, stateHash: string, now: number): Promise<OAuthFlowRecord> {
  const taken = await k.storage.oauth.takeState(stateHash, now);
  if (!taken.ok) throw new LatchkeyError(stateFailures[taken.reason]);
  return taken.flow;
}

/**
 * Once the state is spent every outcome goes to the App's redirect URL. `refusal` is the
 * provider's own (the user said no), in its words; `caught` turns what failed after it into the
 * redirect's error, logging what is Latchkey's fault (not a provider failing validation).
 */
export function callbackFailures(k: Kernel, flow: OAuthFlowRecord, logLabel: string) {
  const failed = (error: string, description: string) => ({
    location: withParams(flow.login_redirect_url, { error, error_description: description.slice(0, 500) }),
  });
  return {
    refusal(params: URLSearchParams): { location: string } | null {
      const providerError = params.get('error');
      return providerError === null
        ? null
        : failed(providerError.slice(0, 200), params.get('error_description') ?? '');
    },
    caught(error: unknown): { location: string } {
      if (!isLatchkeyError(error)) {
        k.logger.error({ err: error, app_id: flow.app_id }, logLabel);
        return failed('server_error', 'The sign-in could not be completed.');
      }
      if (error.status >= 500 && error.errorType !== 'oauth_provider_error')
        k.logger.error({ err: error, app_id: flow.app_id }, logLabel);
      return failed(error.errorType, error.message);
    },
  };
}

/**
 * Spends the callback's token (hashed by the caller) once: its flow, checked against the browser's
 * PKCE verifier when the start carried a challenge, and the link it named, still its user's.
 * `failures` are the caller's error types for a token unknown, spent or expired.
 */
export async function spendFlowToken(
  k: Kernel,
  appId: string,
  token: { hash: string; codeVerifier: string | undefined },
  failures: Record<OAuthTakeFailure, ErrorType>,
  now: number,
): Promise<{ flow: OAuthFlowRecord; link: OAuthLinkRecord }> {
  const taken = await k.storage.oauth.takeToken(appId, token.hash, now);
  if (!taken.ok) throw new LatchkeyError(failures[taken.reason]);
  const flow = taken.flow;
  // A token stolen on its way to the App (a logged URL) is useless without the browser's verifier.
  if (flow.client_code_challenge !== null) {
    const given = token.codeVerifier ? await oauth.calculatePKCECodeChallenge(token.codeVerifier) : undefined;
    if (given !== flow.client_code_challenge) throw new LatchkeyError('oauth_code_verifier_mismatch');
  }
  if (!flow.link_id || !flow.user_id) throw new LatchkeyError(failures.not_found);
  const link = await k.storage.oauth.getLink(appId, flow.link_id);
  // Unlinked (or the user deleted) since the callback: the proof no longer names anyone.
  if (!link || link.user_id !== flow.user_id) throw new LatchkeyError(failures.not_found);
  return { flow, link };
}

/** The session factor of a sign-in through `link`, proven now, under `providerId`. */
export const oauthFactor = (link: OAuthLinkRecord, providerId: string, now: number): Factor => ({
  type: 'oauth',
  delivery_channel: 'oauth',
  method: {
    method_id: link.id,
    method_type: 'oauth',
    oauth_link_id: link.id,
    provider_id: providerId,
    provider_subject: link.subject,
    email: link.email,
    last_verified_at: now,
  },
});
