import { createClientCore, type LatchkeyClientOptions } from './client.js';
import { magicLinks } from './magic-links.js';
import { oauth } from './oauth.js';
import { otps } from './otps.js';
import { passkeys } from './passkeys.js';
import { passwords } from './passwords.js';
import { sso } from './sso.js';
import { totp } from './totp.js';
import { wallets } from './wallets.js';

export type { BrowserRoute, LatchkeyClientOptions } from './client.js';
export {
  type ClientErrorType,
  isLatchkeyClientError,
  LatchkeyClientError,
  type OAuthRedirectErrorType,
  type ServerErrorType,
} from './errors.js';
export type { components, PublicRoute, paths } from './generated/openapi.js';
export type { OAuthAuthenticateOptions, OAuthStartOptions } from './oauth.js';
export type { SessionChange, SessionPersistence, SessionState } from './session-store.js';
export type { SsoAuthenticateOptions, SsoOrganization, SsoStartOptions } from './sso.js';
export { type TotpEnrolment, totpEnrolment } from './totp.js';
export type { BodyOf, CallOptions, ResponseOf, Route } from './transport.js';
export type { Eip1193Provider, SolanaMessageSigner } from './wallets.js';

/**
 * The browser client: the calls a page makes with the App's public token, the sign-in ceremonies
 * and the session they leave behind. Runs anywhere `fetch` does.
 */
export function createLatchkeyClient(options: LatchkeyClientOptions & { totpPath?: string }) {
  const { core, session, close } = createClientCore(options);
  return {
    /** A typed call to any public-token route, for what the helpers below do not cover. */
    call: core.call,
    session,
    otps: otps(core),
    magicLinks: magicLinks(core),
    oauth: oauth(core),
    sso: sso(core),
    passkeys: passkeys(core),
    totp: totp(core, options.totpPath),
    wallets: wallets(core),
    passwords: passwords(core),
    close,
  };
}

export type LatchkeyClient = ReturnType<typeof createLatchkeyClient>;
