import { appsCapability } from './apps/capability.js';
import { balancesCapability } from './balances/capability.js';
import { eventsCapability } from './events/capability.js';
import { magicLinksCapability } from './magic-links/capability.js';
import { oauthCapability } from './oauth/capability.js';
import { organizationsCapability } from './organizations/capability.js';
import { otpsCapability } from './otps/capability.js';
import { passwordAuthCapability } from './password-auth/capability.js';
import { passwordsCapability } from './passwords/capability.js';
import { sessionsCapability } from './sessions/capability.js';
import { ssoCapability } from './sso/capability.js';
import { totpsCapability } from './totps/capability.js';
import { usersCapability } from './users/capability.js';
import { walletAuthCapability } from './wallet-auth/capability.js';
import { walletPoliciesCapability } from './wallet-policies/capability.js';
import { walletTransactionsCapability } from './wallet-transactions/capability.js';
import { walletsCapability } from './wallets/capability.js';
import { webauthnCapability } from './webauthn/capability.js';
import { webhooksCapability } from './webhooks/capability.js';

/**
 * Every built-in capability: `createLatchkey` builds their services (each after those it
 * needs), mounts their routes in this order (the order of the OpenAPI document's paths) and
 * types `Latchkey` from this list. A new capability is its folder plus one line here.
 */
export const defaultCapabilities = [
  appsCapability,
  usersCapability,
  otpsCapability,
  magicLinksCapability,
  totpsCapability,
  sessionsCapability,
  walletPoliciesCapability,
  walletsCapability,
  balancesCapability,
  walletTransactionsCapability,
  webauthnCapability,
  walletAuthCapability,
  passwordsCapability,
  passwordAuthCapability,
  oauthCapability,
  organizationsCapability,
  ssoCapability,
  eventsCapability,
  webhooksCapability,
] as const;

export type DefaultCapabilities = typeof defaultCapabilities;
