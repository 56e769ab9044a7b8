import { LatchkeyError } from '@latchkey/core';

// Socket-level failures: the server is down, restarting, or unreachable.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// Postgres says it is going away or cannot take us now: admin/crash shutdown, starting up,
// too many connections. Class 08 (connection exception) is matched by prefix.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

// node-postgres reports a lost or timed-out connection with plain Errors that carry no code.
const PG_CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /is not queryable/,
];

/** Whether `err` means the database could not be reached (as opposed to a query that failed). */
export function isConnectionError(err: unknown, depth = 0): boolean {
  if (depth > 4 || typeof err !== 'object' || err === null) return false;
  const { code, message, cause, errors } = err as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (typeof message === 'string' && PG_CONNECTION_MESSAGES.some((re) => re.test(message))) return true;
  // Node reports a refused dual-stack connect as an AggregateError of one error per address.
  if (Array.isArray(errors) && errors.some((e) => isConnectionError(e, depth + 1))) return true;
  return isConnectionError(cause, depth + 1);
}

// Text the database cannot hold (NUL, bytes invalid in the encoding): the caller's input, not our
// failure. The HTTP layer refuses such text first; this keeps direct library calls off a 500 too.
const UNSTORABLE_TEXT_SQLSTATES = new Set(['22021', '22P05']);

/**
 * Turns a connection failure into `storage_unavailable` (a 503) and text the database cannot hold
 * into `invalid_field` (a 400); any other error is returned as is.
 */
export function toStorageError(err: unknown): unknown {
  if (err instanceof LatchkeyError) return err;
  if (isConnectionError(err)) return new LatchkeyError('storage_unavailable', undefined, { cause: err });
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNSTORABLE_TEXT_SQLSTATES.has(code)) {
    return new LatchkeyError('invalid_field', 'A value contains text the database cannot store.', {
      cause: err,
    });
  }
  return err;
}

/** The same repository, each method rethrowing connection failures as `storage_unavailable`. */
export function withStorageErrors<T extends object>(repo: T): T {
  const guarded: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(repo)) {
    guarded[name] =
      typeof method === 'function'
        ? async (...args: unknown[]) => {
            try {
              return await method.apply(repo, args);
            } catch (err) {
              throw toStorageError(err);
            }
          }
        : method;
  }
  return guarded as T;
}
