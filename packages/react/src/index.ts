'use client';

// Every export is client code: the directive above (and the built bundle's first line) makes a
// React Server Components bundler keep this package out of server components' module graph.
export type {
  Eip1193Provider,
  LatchkeyClient,
  LatchkeyClientOptions,
  SessionState,
  SolanaMessageSigner,
  TotpEnrolment,
} from '@latchkey/client';
export { type MagicLinkStep, useMagicLink } from './ceremonies/magic-link.js';
export { type OrganizationStep, useOrganizationSwitch } from './ceremonies/organization.js';
export { type OtpStep, useOtpSignIn } from './ceremonies/otp.js';
export { type PasskeyStep, usePasskey } from './ceremonies/passkey.js';
export { type TotpStep, useTotp } from './ceremonies/totp.js';
export { useWalletSignIn, type WalletStep } from './ceremonies/wallet.js';
export { LatchkeyProvider, type LatchkeyProviderProps, useLatchkeyClient } from './context.js';
export type { SessionSnapshot, SessionStatus } from './session-source.js';
export type { CeremonyState } from './use-ceremony.js';
export { type SessionUser, type UseSession, type UseUser, useSession, useUser } from './use-session.js';
