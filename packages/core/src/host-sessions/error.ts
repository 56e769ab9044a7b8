import { randomBytes } from 'node:crypto';
import type { LatchkeyError } from '../errors.js';
import type { ErrorBody } from '../http/error-body.js';

/** The documented error body for a host route's refusal, with a fresh request id. */
export function hostErrorBody(error: LatchkeyError): ErrorBody {
  return {
    status_code: error.status,
    request_id: `req_${randomBytes(12).toString('base64url')}`,
    error_type: error.errorType,
    error_message: error.message,
  };
}
