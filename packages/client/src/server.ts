import type { paths } from './generated/openapi.js';
import { type Call, createTransport, type Route } from './transport.js';

export {
  type ClientErrorType,
  isLatchkeyClientError,
  LatchkeyClientError,
  type ServerErrorType,
} from './errors.js';
export type { components, PublicRoute, paths } from './generated/openapi.js';
export type { BodyOf, CallOptions, ResponseOf, Route } from './transport.js';

export interface LatchkeyServerClientOptions {
  /** Where Latchkey is mounted, e.g. `https://auth.internal:3000`. */
  baseUrl: string;
  /** The App's secret key, `sk_…`. Keep it on servers: never ship this entry to a browser. */
  secretKey: string;
  fetch?: typeof fetch;
}

/**
 * The secret-key API, every documented route typed from the OpenAPI document:
 * `call('post /v1/auth/users', { body: { email } })`, `call('get /v1/auth/users/{user_id}', {
 * params: { user_id } })`.
 */
export function createLatchkeyServerClient(options: LatchkeyServerClientOptions): {
  call: Call<Route>;
} {
  return {
    call: createTransport({
      baseUrl: options.baseUrl,
      key: options.secretKey,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    }),
  };
}

export type ServerPaths = paths;
