import type { components } from './generated/openapi.js';

/** Every `error_type` the server can answer with: the catalogue, as the OpenAPI document lists it. */
export type ServerErrorType = components['schemas']['Error']['error_type'];

/**
 * The `error` codes an authorization server may send back to the redirect (RFC 6749 §4.1.2.1 and
 * OpenID Connect Core §3.1.2.6), which Latchkey's callback passes on as the provider gave them.
 * `access_denied` is the user choosing "Cancel" on the provider's page.
 */
export type OAuthRedirectErrorType =
  | 'invalid_request'
  | 'unauthorized_client'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'interaction_required'
  | 'login_required'
  | 'account_selection_required'
  | 'consent_required'
  | 'invalid_request_uri'
  | 'invalid_request_object'
  | 'request_not_supported'
  | 'request_uri_not_supported'
  | 'registration_not_supported';

/**
 * `network_error` when no answer came (offline, CORS refused, DNS), `invalid_response` when the
 * answer was not Latchkey's JSON error body (a proxy's HTML page), `pkce_unavailable` where the page
 * has no WebCrypto (not a secure context), and the OAuth redirect's own codes: the client's own,
 * so `error_type` is always one closed set.
 */
export type ClientErrorType =
  | ServerErrorType
  | OAuthRedirectErrorType
  | 'network_error'
  | 'invalid_response'
  | 'pkce_unavailable';

/** One error for every failed call: the server's error body, typed. */
export class LatchkeyClientError extends Error {
  override readonly name = 'LatchkeyClientError';
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  readonly error_type: ClientErrorType;
  readonly request_id: string | undefined;
  /** The request field at fault (400s), as a dotted path. */
  readonly error_field: string | undefined;
  /** Seconds to wait before retrying, from `Retry-After` (429s and lock-outs). */
  readonly retry_after: number | undefined;

  constructor(init: {
    status: number;
    error_type: ClientErrorType;
    message: string;
    request_id?: string | undefined;
    error_field?: string | undefined;
    retry_after?: number | undefined;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.error_type = init.error_type;
    this.request_id = init.request_id;
    this.error_field = init.error_field;
    this.retry_after = init.retry_after;
  }
}

export const isLatchkeyClientError = (e: unknown): e is LatchkeyClientError =>
  e instanceof LatchkeyClientError;

type ErrorBody = components['schemas']['Error'];

const isErrorBody = (body: unknown): body is ErrorBody =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as ErrorBody).error_type === 'string' &&
  typeof (body as ErrorBody).error_message === 'string';

/** The typed error for a non-2xx answer, whatever its body turned out to be. */
export function errorFromResponse(res: Response, body: unknown): LatchkeyClientError {
  const retryHeader = res.headers.get('retry-after');
  const retryAfter = retryHeader !== null && /^\d+$/.test(retryHeader) ? Number(retryHeader) : undefined;
  const requestId = res.headers.get('x-request-id') ?? undefined;
  if (!isErrorBody(body))
    return new LatchkeyClientError({
      status: res.status,
      error_type: 'invalid_response',
      message: `The server answered ${res.status} without a Latchkey error body.`,
      request_id: requestId,
      retry_after: retryAfter,
    });
  return new LatchkeyClientError({
    status: res.status,
    error_type: body.error_type,
    message: body.error_message,
    request_id: body.request_id ?? requestId,
    error_field: body.error_field,
    retry_after: retryAfter,
  });
}
