import type { ClientCore } from './client.js';
import { LatchkeyClientError } from './errors.js';

/** The signed-in user's organizations, as far as a browser may act on them with the public token. */
export const organizations = (core: ClientCore) => ({
  /**
   * Trades the current session for one scoped to this organization (its roles and permissions in
   * the JWT) and holds that one instead: the server revokes the session sent, so the old
   * credential is no longer worth keeping. 403 `not_a_member` when the user is not a member.
   */
  switchTo: async (organizationId: string) =>
    core.session.accept(
      await core.call('post /v1/organizations/{organization_id}/sessions/exchange', {
        params: { organization_id: organizationId },
        body: held(core),
      }),
    ),
});

function held(core: ClientCore) {
  const credential = core.session.credential();
  if (!('session_token' in credential) && !('session_jwt' in credential))
    throw new LatchkeyClientError({
      status: 0,
      error_type: 'session_required',
      message:
        'Sign in first: the client holds no session to exchange (in cookie mode, exchange through the host).',
    });
  return credential;
}
