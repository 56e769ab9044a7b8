import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ApiKeyKind, AppRecord } from '../apps/repo.js';
import type { ErrorType } from '../errors.js';

/** Per-request values the middleware chain sets for the handlers. */
export interface HttpEnv {
  Variables: {
    requestId: string;
    /** Set on every route that takes an API key. */
    app: AppRecord;
    keyKind: ApiKeyKind;
    /** Set when the answer is an error: its `error_type` (read by the request span). */
    errorType: ErrorType;
  };
  Bindings: {
    /** The client's address, when the adapter knows it (Express, Node server). */
    clientIp?: string;
  };
}

export type HttpApp = OpenAPIHono<HttpEnv>;
