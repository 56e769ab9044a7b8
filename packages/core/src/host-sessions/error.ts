import { newRequestId } from '../crypto/ids.js';
import type { LatchkeyError } from '../errors.js';
import { type ErrorBody, errorBody } from '../http/error-body.js';
import { systemRandom } from '../ports/random.js';

/** The documented error body for a host route's refusal, with a fresh request id. */
export function hostErrorBody(error: LatchkeyError): ErrorBody {
  return errorBody(error, newRequestId(systemRandom));
}
