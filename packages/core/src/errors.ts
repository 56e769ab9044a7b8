import { capabilityErrors } from './capability-errors.js';

/**
 * The error types more than one part of core raises, or the HTTP layer and the adapters do (a
 * test holds errors.ts to that). A type only one capability raises is in its folder's errors.ts.
 */
export const genericErrors = {
  // 400: the request itself is wrong
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  missing_field: { status: 400, message: 'A required field is missing.' },
  invalid_field: { status: 400, message: 'A field has the wrong type, format or range.' },
  unknown_field: { status: 400, message: 'The request has a field this endpoint does not accept.' },
  repeated_session_cookie: {
    status: 400,
    message:
      "The request carries a session cookie name twice (one set by another subdomain or path): refused rather than picking one. Clear this site's cookies and sign in again.",
  },
  invalid_email: { status: 400, message: 'The email address is not valid.' },
  invalid_phone_number: {
    status: 400,
    message: 'The phone number is not valid; send it in international form, e.g. +14155550100.',
  },
  sms_country_not_allowed: {
    status: 400,
    message: "SMS cannot go to this phone number's country (settings.sms.allowed_calling_codes).",
  },
  phone_number_type_not_allowed: {
    status: 400,
    message:
      'SMS cannot go to this type of phone number, e.g. premium-rate (settings.sms.refused_number_types).',
  },
  redirect_url_not_allowed: {
    status: 400,
    message: "The redirect URL is not in the App's allowed list (scheme, host, port and path must match).",
  },
  missing_redirect_url: {
    status: 400,
    message: 'No redirect URL was given and the App has no default redirect URL configured.',
  },
  invalid_mnemonic: { status: 400, message: 'The mnemonic is not a valid BIP39 phrase.' },
  invalid_private_key: {
    status: 400,
    message: "The private key is not valid in this chain's usual encoding.",
  },
  invalid_transaction: { status: 400, message: 'The transaction could not be decoded.' },
  wallet_type_mismatch: { status: 400, message: "This operation does not suit the wallet's type." },
  wallet_not_a_signer: {
    status: 400,
    message: 'The wallet is not among the required signers of this transaction.',
  },
  // 401: no valid proof
  unauthorized: { status: 401, message: 'Missing or invalid API key in the Authorization header.' },
  device_fingerprint_mismatch: {
    status: 401,
    message: 'The device verifying does not match the device that asked for the passcode or link.',
  },
  session_not_found: { status: 401, message: 'No live session matches this token or JWT.' },
  session_required: {
    status: 401,
    message: 'Send a session: `Authorization: Bearer <session JWT or token>`, or the session cookies.',
  },
  invalid_session_jwt: {
    status: 401,
    message: 'The session JWT is malformed, expired or not signed by this App.',
  },
  step_up_required: {
    status: 401,
    message:
      'This action needs a recent proof of identity on this session: prove one of the factors the message names again, then retry.',
  },
  // 403: a valid key of the wrong kind
  secret_key_required: {
    status: 403,
    message: "This endpoint needs the App's secret key; a public token is not enough.",
  },
  // Raised by more than one capability (SSO builds on OAuth's flow and on organizations).
  oauth_provider_error: {
    status: 502,
    message:
      'The provider could not be reached, or what it answered failed validation (issuer, audience, nonce, signature or expiry).',
  },
  oauth_state_not_found: {
    status: 400,
    message: 'No sign-in was started with this state: start it again from the App.',
  },
  organization_not_found: { status: 404, message: 'The App has no organization with this id.' },
  organization_member_not_found: {
    status: 404,
    message: 'The organization has no member with this id.',
  },
  sso_required: {
    status: 403,
    message:
      "The user's organization requires signing in through its SSO connection (GET /v1/auth/sso/start).",
  },
  permission_denied: {
    status: 403,
    message:
      "This route needs a session scoped to an organization (the one it names, when it names one) whose member's roles grant its permission.",
  },
  policy_violation: {
    status: 403,
    message:
      'A wallet policy refused this signature; `policy_rule` names the rule (see docs/wallet-policies.md).',
  },
  cross_site_request: {
    status: 403,
    message:
      "A request signed in by cookie that changes state must come from the host's own origin or one of the App's allowed origins.",
  },
  https_behind_untrusted_proxy: {
    status: 403,
    message:
      "This request signed in by cookie came from this host's own https origin, but the host sees it as http: it sits behind a TLS proxy it does not trust. The operator must set Express's `app.set('trust proxy', …)` (docs/host-sessions.md).",
  },
  // 404: unknown, or another App's, resource
  route_not_found: { status: 404, message: 'No route matches this path.' },
  app_not_found: { status: 404, message: 'No App with this id.' },
  user_not_found: { status: 404, message: 'No user with this id.' },
  email_not_found: { status: 404, message: 'No email with this id.' },
  phone_number_not_found: { status: 404, message: 'No phone number with this id.' },
  wallet_not_found: { status: 404, message: 'No wallet with this id.' },
  webhook_endpoint_not_found: { status: 404, message: 'No webhook endpoint with this id.' },
  // 405, 409, 413, 415, 429
  method_not_allowed: { status: 405, message: 'This route does not accept this HTTP method.' },
  duplicate_email: { status: 409, message: 'This email address already belongs to a user of this App.' },
  duplicate_phone_number: {
    status: 409,
    message: 'This phone number already belongs to a user of this App.',
  },
  email_belongs_to_another_user: {
    status: 409,
    message: 'This email address belongs to another user of this App.',
  },
  phone_number_belongs_to_another_user: {
    status: 409,
    message: 'This phone number belongs to another user of this App.',
  },
  duplicate_wallet: {
    status: 409,
    message: 'A wallet with this address and type already exists in this App.',
  },
  request_too_large: { status: 413, message: 'The request body is larger than the limit.' },
  unsupported_media_type: { status: 415, message: 'Send the request body as application/json.' },
  rate_limited: { status: 429, message: 'Too many requests; retry after the time in Retry-After.' },
  // 5xx: our side, or a dependency
  internal_error: { status: 500, message: 'Something went wrong on our side.' },
  storage_feature_missing: {
    status: 501,
    message: "The storage adapter lacks an optional method this endpoint needs (see the adapter's docs).",
  },
  vault_open_failed: {
    status: 500,
    message: 'Sealed data could not be opened with this vault key and context.',
  },
  vault_key_missing: {
    status: 500,
    message: 'The key version that sealed this data is not configured.',
  },
  sender_unavailable: { status: 502, message: 'The message could not be delivered; retry shortly.' },
  chain_unavailable: {
    status: 502,
    message: "The chain's RPC endpoint failed or refused the request; retry shortly.",
  },
  chain_invalid_response: {
    status: 502,
    message: "The chain's RPC endpoint gave an answer that is malformed or for another chain.",
  },
  storage_unavailable: {
    status: 503,
    message: 'The database is unavailable; retry shortly.',
  },
  request_timeout: {
    status: 503,
    message: 'The request did not finish within the time limit; it may still take effect.',
  },
  chain_not_configured: {
    status: 503,
    message: "No RPC endpoint is configured for this token's chain and the wallet's network.",
  },
  chain_timeout: {
    status: 504,
    message: "The chain's RPC endpoint did not answer in time; retry shortly.",
  },
} as const satisfies ErrorTable;

/** Error types with the status and the default message of each. */
export type ErrorTable = Readonly<Record<string, { readonly status: number; readonly message: string }>>;

/**
 * The one catalogue of failures: every non-2xx response carries one of these `error_type` values,
 * and `new LatchkeyError(type)` takes its status from here. Complete as soon as this module loads,
 * whoever imports it (a service built without createLatchkey, a storage adapter): the capabilities'
 * types come from capability-errors.ts, the copy `npm run regenerate` writes of their tables,
 * which imports nothing (docs/decisions.md, "Sign-in methods by their folder").
 * `docs/errors.md` is kept in step with it by a test.
 */
export const errorCatalogue = Object.freeze({ ...genericErrors, ...capabilityErrors });

export type ErrorType = keyof typeof errorCatalogue;

/** Which rule of which wallet policy refused a signature. */
export interface PolicyRuleRef {
  policy_id: string;
  rule_index: number;
  rule_kind: string;
}

/** The only error class: services throw it, the HTTP layer turns it into the documented body. */
export class LatchkeyError extends Error {
  override readonly name = 'LatchkeyError';
  readonly errorType: ErrorType;
  readonly status: number;
  /** The request field at fault, as a dotted path, for 400s. */
  readonly field: string | undefined;
  /** Seconds to wait, for 429s. */
  readonly retryAfter: number | undefined;
  /** For `policy_violation`: the rule that refused. */
  readonly policyRule: PolicyRuleRef | undefined;

  constructor(
    errorType: ErrorType,
    message?: string,
    extra: { field?: string; retryAfter?: number; cause?: unknown; policyRule?: PolicyRuleRef } = {},
  ) {
    super(message ?? errorCatalogue[errorType].message, { cause: extra.cause });
    this.errorType = errorType;
    this.status = errorCatalogue[errorType].status;
    this.field = extra.field;
    this.retryAfter = extra.retryAfter;
    this.policyRule = extra.policyRule;
  }
}

export const isLatchkeyError = (e: unknown): e is LatchkeyError => e instanceof LatchkeyError;
