import { LatchkeyError } from '../errors.js';

/**
 * The `error.type` of a failure: the catalogue's `error_type` for a LatchkeyError, else
 * `internal_error` (what the client is answered). Never the message: a driver's message may
 * quote the values it was given.
 */
export function errorTypeOf(err: unknown): string {
  return err instanceof LatchkeyError ? err.errorType : 'internal_error';
}
