/**
 * The one catalogue of failures. Every non-2xx response carries one of these `error_type`
 * values; `docs/errors.md` is kept in step with this table by a test.
 */
export const errorCatalogue = {
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
  weak_password: {
    status: 400,
    message:
      "The password is too easy to guess (its strength score is below the App's settings.passwords.min_score).",
  },
  breached_password: {
    status: 400,
    message: 'The password appears in a known data breach; choose another.',
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
  invalid_recipient_key: {
    status: 400,
    message: 'The recipient public key is not a P-256 (SEC1) or X25519 public key.',
  },
  invalid_transaction: { status: 400, message: 'The transaction could not be decoded.' },
  insufficient_funds: {
    status: 400,
    message: "The wallet's balance on this chain does not cover the value and the most the gas may cost.",
  },
  transaction_reverted: {
    status: 400,
    message: 'The chain reports that this transaction would revert (its gas could not be estimated).',
  },
  transaction_rejected: {
    status: 400,
    message: "The chain's node refused the signed transaction; the message gives its reason.",
  },
  invalid_webhook_url: {
    status: 400,
    message:
      'The webhook URL must be an absolute https URL (plain http only for localhost), without credentials.',
  },
  webhook_url_not_allowed: {
    status: 400,
    message:
      'The webhook URL points at localhost or a loopback, private or other non-public address, which this server does not allow.',
  },
  wallet_type_mismatch: { status: 400, message: "This operation does not suit the wallet's type." },
  wallet_not_a_signer: {
    status: 400,
    message: 'The wallet is not among the required signers of this transaction.',
  },
  wallet_read_only: {
    status: 400,
    message: 'This wallet is read-only: Latchkey holds no key for it.',
  },
  token_wallet_type_mismatch: {
    status: 400,
    message: "This token does not suit the wallet's type (see docs/balances.md for the token table).",
  },
  token_not_on_network: {
    status: 400,
    message: "This token has no known address on the wallet's network (see docs/balances.md).",
  },
  webauthn_domain_not_allowed: {
    status: 400,
    message: "The domain is not one of the App's WebAuthn domains (settings.webauthn.allowed_domains).",
  },
  invalid_webauthn_credential: {
    status: 400,
    message: 'The public key credential could not be read as a WebAuthn credential.',
  },
  invalid_wallet_address: {
    status: 400,
    message:
      'The address is not one of this wallet type: 0x + 40 hex for ethereum (a mixed-case one with a valid EIP-55 checksum), 32 bytes of base58 for solana.',
  },
  // 401: no valid proof
  unauthorized: { status: 401, message: 'Missing or invalid API key in the Authorization header.' },
  otp_code_invalid: { status: 401, message: 'The passcode is wrong.' },
  otp_code_expired: { status: 401, message: 'The passcode has expired; send a new one.' },
  otp_code_used: { status: 401, message: 'The passcode was already used; send a new one.' },
  otp_code_too_many_attempts: {
    status: 401,
    message: 'Too many wrong passcodes; this one no longer works. Send a new one.',
  },
  device_fingerprint_mismatch: {
    status: 401,
    message: 'The device verifying does not match the device that asked for the passcode or link.',
  },
  totp_code_invalid: { status: 401, message: 'The TOTP code is wrong.' },
  totp_code_used: { status: 401, message: 'This TOTP code was already used; wait for the next one.' },
  totp_expired: {
    status: 401,
    message: 'The TOTP was not verified within its window; create a new one.',
  },
  recovery_code_invalid: { status: 401, message: 'The recovery code is wrong.' },
  recovery_code_used: { status: 401, message: 'This recovery code was already used.' },
  magic_link_expired: { status: 401, message: 'The magic link has expired; ask for a new one.' },
  magic_link_used: { status: 401, message: 'The magic link was already used; ask for a new one.' },
  magic_link_too_many_attempts: {
    status: 401,
    message: 'The magic link was tried from too many other devices and no longer works; ask for a new one.',
  },
  invalid_credentials: {
    status: 401,
    message: 'The email or the password is wrong.',
  },
  reauthentication_required: {
    status: 401,
    message: "The session's last sign-in is older than this action allows; sign in again, then retry.",
  },
  password_reset_expired: { status: 401, message: 'The password reset link has expired; ask for a new one.' },
  password_reset_used: {
    status: 401,
    message: 'The password reset link was already used; ask for a new one.',
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
  webauthn_challenge_not_found: {
    status: 401,
    message: 'The credential answers no challenge this App issued for this ceremony; begin again.',
  },
  webauthn_challenge_used: {
    status: 401,
    message: 'The challenge this credential answers was already used; begin again.',
  },
  webauthn_challenge_expired: {
    status: 401,
    message: 'The challenge this credential answers has expired (the options timeout); begin again.',
  },
  webauthn_origin_mismatch: {
    status: 401,
    message: 'The credential was made on a web origin that may not use this domain.',
  },
  webauthn_rp_id_mismatch: {
    status: 401,
    message: 'The authenticator signed for another relying-party id than the domain of the challenge.',
  },
  webauthn_verification_failed: {
    status: 401,
    message: "The credential's signature, attestation or flags did not verify.",
  },
  webauthn_credential_not_allowed: {
    status: 401,
    message: 'This credential is not registered for this user and domain.',
  },
  webauthn_counter_regression: {
    status: 401,
    message:
      "The authenticator's signature counter did not advance: the credential may have been cloned. Nothing was signed in.",
  },
  wallet_challenge_not_found: {
    status: 401,
    message: 'No sign-in challenge of this App has this nonce, or none was issued for this address.',
  },
  wallet_challenge_used: {
    status: 401,
    message: 'This sign-in challenge was already used (by a right or a wrong signature); ask for a new one.',
  },
  wallet_challenge_expired: {
    status: 401,
    message: 'This sign-in challenge has expired; ask for a new one.',
  },
  wallet_address_mismatch: {
    status: 401,
    message: 'The challenge was issued for another wallet address or type; ask for one for this wallet.',
  },
  invalid_signature: {
    status: 401,
    message: "The signature is not this wallet's signature over the challenge message.",
  },
  // 403: a valid key of the wrong kind
  secret_key_required: {
    status: 403,
    message: "This endpoint needs the App's secret key; a public token is not enough.",
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
  totp_not_found: {
    status: 404,
    message: 'No TOTP with this id, or the user has none (active or pending as needed).',
  },
  wallet_not_found: { status: 404, message: 'No wallet with this id.' },
  policy_not_found: { status: 404, message: 'No wallet policy with this id.' },
  transaction_not_found: { status: 404, message: 'This wallet has no transaction with this id.' },
  webauthn_credential_not_found: { status: 404, message: 'No WebAuthn credential with this id.' },
  webhook_endpoint_not_found: { status: 404, message: 'No webhook endpoint with this id.' },
  event_not_found: { status: 404, message: 'No event with this id.' },
  password_reset_not_found: { status: 404, message: 'No password reset link matches this token.' },
  magic_link_not_found: { status: 404, message: 'No magic link matches this token.' },
  otp_code_not_found: {
    status: 404,
    message: 'No passcode was sent to this method, or the method is unknown.',
  },
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
  totp_already_active: {
    status: 409,
    message: 'The user already has an active TOTP; delete it before creating another.',
  },
  policy_limit_reached: {
    status: 409,
    message: 'The App already has as many wallet policies as it may keep (100); delete one first.',
  },
  nonce_conflict: {
    status: 409,
    message:
      "The chain already holds another transaction at this wallet's nonce (sent from outside Latchkey, or the replacement's fees are too low); retry the send.",
  },
  transaction_not_replaceable: {
    status: 409,
    message:
      'Only a submitted transaction, not yet confirmed, failed or replaced, can be sped up or cancelled.',
  },
  duplicate_wallet: {
    status: 409,
    message: 'A wallet with this address and type already exists in this App.',
  },
  duplicate_webauthn_credential: {
    status: 409,
    message: 'This credential is already registered in this App.',
  },
  wallet_belongs_to_another_user: {
    status: 409,
    message: 'This wallet address belongs to another user of this App.',
  },
  request_too_large: { status: 413, message: 'The request body is larger than the limit.' },
  unsupported_media_type: { status: 415, message: 'Send the request body as application/json.' },
  totp_locked: {
    status: 429,
    message: 'Too many wrong TOTP codes; try again after the time in Retry-After.',
  },
  recovery_code_locked: {
    status: 429,
    message: 'Too many wrong recovery codes; try again after the time in Retry-After.',
  },
  password_locked: {
    status: 429,
    message: 'Too many wrong passwords for this account; try again after the time in Retry-After.',
  },
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
} as const satisfies Record<string, { status: number; message: string }>;

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
