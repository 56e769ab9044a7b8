import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { type ClientCore, sessionFields } from './client.js';
import { LatchkeyClientError } from './errors.js';
import type { components } from './generated/openapi.js';

type AuthenticatorType = components['schemas']['WebAuthnRegistrationBeginRequest']['authenticator_type'];

const pageDomain = () => globalThis.location?.hostname ?? '';

/** Passkeys through the browser's WebAuthn ceremony (@simplewebauthn/browser). */
export const passkeys = (core: ClientCore) => ({
  /**
   * Adds a passkey to the signed-in user: the server learns the user from the session sent, so a
   * browser can only ever add a passkey to its own account.
   */
  register: async (
    input: { domain?: string; authenticator_type?: AuthenticatorType; name?: string } = {},
  ) => {
    const session = core.session.credential();
    if (!('session_token' in session) && !('session_jwt' in session))
      throw new LatchkeyClientError({
        status: 0,
        error_type: 'session_required',
        message: 'Sign in first: a passkey is added to the signed-in user.',
      });
    const begun = await core.call('post /v1/auth/webauthn/registrations/begin', {
      body: {
        ...session,
        domain: input.domain ?? pageDomain(),
        ...(input.authenticator_type ? { authenticator_type: input.authenticator_type } : {}),
      },
    });
    const credential = await startRegistration({
      optionsJSON: begun.public_key_credential_creation_options.publicKey as never,
    });
    return core.call('post /v1/auth/webauthn/registrations/create', {
      body: {
        ...session,
        public_key_credential: credential as never,
        ...(input.name ? { name: input.name } : {}),
      },
    });
  },
  /** Signs in with any passkey of this domain the authenticator holds (discoverable credentials). */
  signIn: async (input: { domain?: string } = {}) => {
    const begun = await core.call('post /v1/auth/webauthn/authentications/begin', {
      body: { domain: input.domain ?? pageDomain() },
    });
    const assertion = await startAuthentication({
      optionsJSON: begun.public_key_credential_request_options.publicKey as never,
    });
    return core.session.accept(
      await core.call('post /v1/auth/webauthn/authentications/complete', {
        body: { ...sessionFields(core), public_key_credential: assertion as never },
      }),
    );
  },
});
