import { type ClientCore, sessionFields } from './client.js';
import type { BodyOf } from './transport.js';

/** Email magic links: send one, and authenticate the `token` of the link the user opened. */
export const magicLinks = (core: ClientCore) => {
  const authenticate = async (token: string) =>
    core.session.accept(
      await core.call('post /v1/auth/magic_links/authenticate', { body: { ...sessionFields(core), token } }),
    );
  return {
    email: {
      loginOrCreate: (body: BodyOf<'post /v1/auth/magic_links/email/login_or_create'>) =>
        core.call('post /v1/auth/magic_links/email/login_or_create', { body }),
    },
    authenticate,
    /**
     * Reads `token` from the URL the link opened (the page's own by default), authenticates it and
     * takes it out of the address bar, so a reload or a shared URL does not carry it. Null when the
     * URL holds no token.
     */
    authenticateFromUrl: async (url: string = globalThis.location?.href ?? '') => {
      const parsed = new URL(url, 'http://localhost');
      const token = parsed.searchParams.get('token');
      if (!token) return null;
      if (globalThis.history && globalThis.location?.href === url) {
        parsed.searchParams.delete('token');
        globalThis.history.replaceState(
          globalThis.history.state,
          '',
          `${parsed.pathname}${parsed.search}${parsed.hash}`,
        );
      }
      return authenticate(token);
    },
  };
};
