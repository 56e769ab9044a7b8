export type { ApiKeyKind, AppRecord, AppRepo } from './apps/repo.js';
export type { AppKeys, AppSettings, AppSettingsInput, AppView, CreateAppInput } from './apps/schema.js';
export { appSettingsSchema } from './apps/schema.js';
export type { AppService } from './apps/service.js';
export { appView } from './apps/service.js';
export type { ChainClients } from './balances/chain-clients.js';
export type { ChainEndpoint, ChainsOptions } from './balances/config.js';
export { formatUnits, parseUnits } from './balances/decimal.js';
export type { WalletBalanceRequest, WalletBalanceResponse } from './balances/schema.js';
export type { BalanceService } from './balances/service.js';
export type { Chain, TokenListing, TokenSymbol } from './balances/tokens.js';
export { CHAINS, TOKEN_SYMBOLS, TOKENS } from './balances/tokens.js';
export type {
  AnyCapability,
  Capability,
  CapabilityContext,
  ReposOf,
  ResolvedOptions,
  ServiceOf,
  ServicesOf,
} from './capability.js';
export { defineCapability } from './capability.js';
export type { TokenAction, TokenFacts } from './chains/evm-token-calls.js';
export type { ChainModule, DerivedKey } from './chains/index.js';
export { chainModules } from './chains/index.js';
export { fromBase64Url, timingSafeEqual, toBase64Url } from './crypto/encoding.js';
export type { IdPrefix } from './crypto/ids.js';
export { newId, newRequestId, newSecret } from './crypto/ids.js';
export type { HashPurpose, KeyedHasher } from './crypto/keyed-hash.js';
export { keyedHasher } from './crypto/keyed-hash.js';
export type { ErrorType, PolicyRuleRef } from './errors.js';
export { errorCatalogue, isLatchkeyError, LatchkeyError } from './errors.js';
export type { EventHandler } from './events/hooks.js';
export type { EventListQuery, EventRecord, EventRepo } from './events/repo.js';
export type { EventService } from './events/service.js';
export type { CookieSite, ResolvedCookieOptions, SessionCookieOptions } from './host-sessions/cookies.js';
export {
  clearedSessionCookies,
  cookieSite,
  cookiesForApiAnswer,
  resolveCookieOptions,
  sessionCookies,
} from './host-sessions/cookies.js';
export type { SessionCookieNaming, SessionCredential } from './host-sessions/credentials.js';
export {
  bearerCredential,
  isLocalHostname,
  jwtAudience,
  looksLikeJwt,
  parseCookies,
  readSessionCookies,
  SESSION_COOKIE_NAMES,
  sessionCookieNames,
} from './host-sessions/credentials.js';
export type { CrossSiteVerdict } from './host-sessions/csrf.js';
export { crossSiteVerdict } from './host-sessions/csrf.js';
export { hostErrorBody } from './host-sessions/error.js';
export type {
  HostRequest,
  HostSession,
  HostSessionOptions,
  HostSessionResult,
  LatchkeySessions,
} from './host-sessions/resolver.js';
export { hostSessionResolver } from './host-sessions/resolver.js';
export type { HttpApp } from './http/env.js';
export type { ErrorBody } from './http/error-body.js';
export { errorBody } from './http/error-body.js';
export { lowerHeaderName } from './http/header-name.js';
export type { RouteClass, RoutePolicy } from './http/route-policy.js';
export type { Kernel } from './kernel.js';
export type {
  CreateLatchkeyOptions,
  DefaultCapabilities,
  Latchkey,
  LatchkeySurface,
  LatchkeyWith,
} from './latchkey.js';
export { createLatchkey, defaultCapabilities } from './latchkey.js';
export type { Logger } from './logging/logger.js';
export { consoleLogger } from './logging/logger.js';
export type {
  MagicLinkConsumeFailure,
  MagicLinkKind,
  MagicLinkRecord,
  MagicLinkRepo,
} from './magic-links/repo.js';
export type { MagicLinkService } from './magic-links/service.js';
export type { ProviderTokens } from './oauth/provider-tokens.js';
export type {
  OAuthFlowRecord,
  OAuthFlowResult,
  OAuthLinkRecord,
  OAuthLinkUpdate,
  OAuthRepo,
  OAuthTakeFailure,
  OAuthTaken,
} from './oauth/repo.js';
export type { OAuthProviderSettings } from './oauth/schema.js';
export type { OAuthService } from './oauth/service.js';
export type { LatchkeyOptions } from './options.js';
export type {
  InvitationConsumeFailure,
  MemberChanged,
  MemberJoinedBy,
  OrganizationInvitationPage,
  OrganizationInvitationRecord,
  OrganizationMemberPage,
  OrganizationMemberRecord,
  OrganizationPage,
  OrganizationRecord,
  OrganizationRepo,
  OrganizationUpdate,
  OrganizationUpdated,
} from './organizations/repo.js';
export { OWNER_ROLE } from './organizations/repo.js';
export type { OrganizationSettings } from './organizations/schema.js';
export type { OrganizationService } from './organizations/service.js';
export type { OtpConsumeFailure, OtpRecord, OtpRepo } from './otps/repo.js';
export type { SendOtpResponse, VerifyOtpRequest, VerifyOtpResponse } from './otps/schema.js';
export type { OtpService } from './otps/service.js';
export {
  type BreachedPasswords,
  countInRange,
  type PwnedPasswordsRangeOptions,
  pwnedPasswordsRange,
} from './password-auth/breach/index.js';
export {
  type Argon2Params,
  argon2ParamsSchema,
  COST_LIMITS as PASSWORD_HASH_COST_LIMITS,
  createPasswordHasher,
  dummyVerify,
  HASH_TYPES,
  type HashType,
  type ImportedHash,
  importedHashSchema,
  OWASP_ARGON2ID,
  type PasswordHasher,
  type PasswordHasherOptions,
  storedFromImport,
} from './password-auth/hashing/index.js';
export type {
  PasswordChangeReason,
  PasswordCheckTicket,
  PasswordRecord,
  PasswordRepo,
  PasswordSource,
} from './password-auth/repo.js';
export type { PasswordAuthService } from './password-auth/service.js';
export type { PasswordEstimate } from './passwords/estimator.js';
export type { StrengthCheckRequest, StrengthCheckResponse } from './passwords/schema.js';
export type { PasswordService } from './passwords/service.js';
export type { BalanceQuery, ChainClient } from './ports/chain-client.js';
export type { Clock } from './ports/clock.js';
export { nowSeconds, systemClock } from './ports/clock.js';
export type { KeyVault } from './ports/key-vault.js';
export type { RandomSource } from './ports/random.js';
export { systemRandom } from './ports/random.js';
export type { RateLimitDecision, RateLimiter, RateLimitHit } from './ports/rate-limiter.js';
export type {
  RevocationChannel,
  RevocationListener,
  RevocationSubscription,
  SessionRevocation,
} from './ports/revocation-channel.js';
export type { OutboundMessage, Sender } from './ports/sender.js';
export type { Storage } from './ports/storage.js';
export type { RateLimitRepo } from './rate-limits/repo.js';
export type { RouteRule } from './rate-limits/route-rules.js';
export type { PendingHit } from './rate-limits/send-limits.js';
export { storageRateLimiter } from './rate-limits/storage-rate-limiter.js';
// Also brings in the ContactRepo methods it declares, for storages that write a send in one step.
export type { FirstWrite } from './sends/repo.js';
export { deviceLabel } from './sessions/device-label.js';
export type { SessionClaims, VerifySessionJwtOptions } from './sessions/jwt.js';
export { DEFAULT_JWT_ISSUER, verifySessionJwt } from './sessions/jwt.js';
export type {
  SessionRecord,
  SessionRepo,
  SessionRevocationReason,
  SigningKeyRecord,
  SigningKeyRepo,
} from './sessions/repo.js';
export type { RevocationState } from './sessions/revoked-sessions.js';
export { RETENTION_SECONDS as REVOCATION_RETENTION_SECONDS } from './sessions/revoked-sessions.js';
export type {
  ListedSession,
  ListSessionsInput,
  Session,
  SessionCheck,
  SessionCheckInput,
  SessionCheckMode,
} from './sessions/schema.js';
export type { IssuedSession, SessionFields, SessionService } from './sessions/service.js';
export type { FactorType, StepUpRequirement } from './sessions/step-up.js';
export { FACTOR_TYPES } from './sessions/step-up.js';
export type { WebAuthnCredentialView } from './shared/credential-view.js';
export type { DeviceFingerprint } from './shared/device-fingerprint.js';
export {
  type DeviceMatchMode,
  type DeviceRequirement,
  deviceRequirement,
  meetsDeviceRequirement,
} from './shared/device-match.js';
export type { EventType } from './shared/event-types.js';
export { EVENT_TYPES } from './shared/event-types.js';
export type { Factor } from './shared/factor.js';
export { BUILT_IN_ROLES } from './shared/organization-roles.js';
export { isAllowedRedirect } from './shared/redirect-url.js';
export type { SigningRequest, SignUnder } from './shared/signing-request.js';
export type {
  SsoConnectionLookup,
  SsoConnectionRecord,
  SsoConnectionUpdate,
  SsoRepo,
} from './sso/repo.js';
export type { SsoService } from './sso/service.js';
export type { TelemetrySpan, TelemetrySpanOptions, TelemetryTracer } from './telemetry/tracer.js';
export { matchingStep, provisioningUri } from './totps/code-check.js';
export type {
  CodeCheckTicket,
  RecoveryCodeRecord,
  RecoveryCodeResult,
  TotpRecord,
  TotpRepo,
} from './totps/repo.js';
export type { TotpService } from './totps/service.js';
export type {
  ContactRecord,
  ContactRepo,
  FoundOrCreated,
  UserName,
  UserRecord,
  UserRepo,
  UserStatus,
  UserWithMethods,
} from './users/repo.js';
export type { CreateUserRequest, CreateUserResponse, User } from './users/schema.js';
export type { UserService } from './users/service.js';
export { userWithMethodsFromLists } from './users/with-methods.js';
export * from './vault/index.js';
export { VERSION } from './version.js';
export {
  ethereumSignInMessage,
  type SignInMessageFields,
  solanaSignInMessage,
} from './wallet-auth/message.js';
export type {
  SignInWalletType,
  WalletChallengeConsumeFailure,
  WalletChallengeRecord,
  WalletChallengeRepo,
} from './wallet-auth/repo.js';
export { SIGN_IN_WALLET_TYPES } from './wallet-auth/repo.js';
export type {
  VerifyWalletRequest,
  VerifyWalletResponse,
  WalletChallengeRequest,
  WalletChallengeResponse,
} from './wallet-auth/schema.js';
export type { WalletAuthService } from './wallet-auth/service.js';
export {
  type DailyCap,
  evaluatePolicies,
  type Refusal,
  type RuleRef,
  type Verdict,
} from './wallet-policies/evaluate.js';
export type {
  SignatureDecision,
  SpendAsset,
  WalletPolicyPage,
  WalletPolicyRecord,
  WalletPolicyRepo,
  WalletSignaturePage,
  WalletSignatureRecord,
  WalletSignatureRepo,
  WalletSpendRecord,
  WalletSpendRepo,
} from './wallet-policies/repo.js';
export {
  type PolicyRule,
  type PolicyRuleKind,
  policyRuleSchema,
  SIGNING_METHODS,
} from './wallet-policies/rules.js';
export type { CreatePolicyRequest, UpdatePolicyRequest, WalletPolicy } from './wallet-policies/schema.js';
export { DAILY_WINDOW_SECONDS, type WalletPolicyService } from './wallet-policies/service.js';
export {
  WALLET_TRANSACTION_STATUSES,
  type WalletTransactionKind,
  type WalletTransactionPage,
  type WalletTransactionPatch,
  type WalletTransactionRecord,
  type WalletTransactionRepo,
  type WalletTransactionStatus,
} from './wallet-transactions/repo.js';
export type {
  SendTransactionRequest,
  WalletTransaction,
} from './wallet-transactions/schema.js';
export type { WalletTransactionService } from './wallet-transactions/service.js';
export type {
  SeedRecord,
  SeedRepo,
  WalletKeySource,
  WalletListPage,
  WalletRecord,
  WalletRepo,
  WalletType,
} from './wallets/repo.js';
export { WALLET_TYPES } from './wallets/repo.js';
export type {
  SignMessageRequest,
  SignTransactionRequest,
  SignTypedDataRequest,
  Wallet,
} from './wallets/schema.js';
export type { WalletService } from './wallets/service.js';
export { isAllowedOrigin as isAllowedWebAuthnOrigin } from './webauthn/origin.js';
export type {
  AuthenticatorType,
  UserVerificationRequirement,
  WebAuthnCeremony,
  WebAuthnChallengeConsumeFailure,
  WebAuthnChallengeRecord,
  WebAuthnCredentialRecord,
  WebAuthnRecordUseResult,
  WebAuthnRepo,
} from './webauthn/repo.js';
export type { WebAuthnService } from './webauthn/service.js';
export { WEBAUTHN_TIMEOUT_MS } from './webauthn/service.js';
export { endpointPauseSeconds, RETRY_DELAYS_SECONDS } from './webhooks/backoff.js';
export type { StartDeliveryOptions } from './webhooks/delivery.js';
export type {
  ClaimedDelivery,
  ClaimLimits,
  DeliveryOutcome,
  DeliveryStatus,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookRepo,
} from './webhooks/repo.js';
export type { WebhookService } from './webhooks/service.js';
export { signWebhook } from './webhooks/signature.js';
