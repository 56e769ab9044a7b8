export {
  makeApp,
  makeContact,
  makeMagicLink,
  makeOtp,
  makeSession,
  makeSigningKey,
  makeUser,
  uid,
} from './fixtures.js';
export type { ConformanceTarget } from './suite.js';
export { runStorageConformance } from './suite.js';
export { makeOAuthFlow, makeOAuthLink } from './suite-oauth.js';
export { makeMember, makeOrganization } from './suite-organizations.js';
export { makePassword } from './suite-passwords.js';
export { makeSsoConnection } from './suite-sso.js';
export { makeTotp } from './suite-totps.js';
export { makeWalletChallenge } from './suite-wallet-challenges.js';
export { makePolicy, makeSignatureEntry, makeSpend } from './suite-wallet-policies.js';
export { makeWalletTransaction } from './suite-wallet-transactions.js';
export { makeWallet } from './suite-wallets.js';
export { makeWebAuthnChallenge, makeWebAuthnCredential } from './suite-webauthn.js';
export { makeEndpoint, makeEvent } from './suite-webhooks.js';
